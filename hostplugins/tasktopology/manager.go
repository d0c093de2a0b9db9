package tasktopology

import (
	"math"
	"sort"

	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// The kinds of rule a role can be in, strongest first: a role's place in
// the pending order is its strongest rule's.
const (
	rankInterAntiAffinity = 1 + iota
	rankSelfAffinity
	rankInterAffinity
	rankSelfAntiAffinity
)

// jobManager holds one job's rules and buckets for a session.
type jobManager struct {
	buckets []*bucket
	// bucketOf is the bucket index of each pod in a bucket.
	bucketOf map[api.TaskID]int
	// role is the role of each pod in a bucket; req its request without
	// the pods count.
	role map[api.TaskID]string
	req  map[api.TaskID]*api.Resource

	// rank is each role's strongest rule; roles without one are in no
	// bucket. order is each role's place in the task order, larger first.
	rank  map[string]int
	order map[string]int

	interAffinity, interAnti map[string]map[string]bool
	selfAffinity, selfAnti   map[string]bool

	// largest is the most pods (pending and placed) a bucket has had.
	largest int
	// onNode counts, per node, the pods of each role on it: those placed
	// in this session and no others, as in Volcano.
	onNode map[string]map[string]int
	// placed remembers where this session's allocate events put pods, so a
	// deallocate takes back exactly what was counted.
	placed map[api.TaskID]placement
}

type placement struct {
	node       string
	entry      pendingPod
	wasPending bool
}

func newJobManager(t *topology) *jobManager {
	m := &jobManager{
		bucketOf:      map[api.TaskID]int{},
		role:          map[api.TaskID]string{},
		req:           map[api.TaskID]*api.Resource{},
		rank:          map[string]int{},
		order:         map[string]int{},
		interAffinity: map[string]map[string]bool{},
		interAnti:     map[string]map[string]bool{},
		selfAffinity:  map[string]bool{},
		selfAnti:      map[string]bool{},
		onNode:        map[string]map[string]int{},
		placed:        map[api.TaskID]placement{},
	}
	m.applyGroups(t.affinity, m.selfAffinity, m.interAffinity, rankSelfAffinity, rankInterAffinity)
	m.applyGroups(t.antiAffinity, m.selfAnti, m.interAnti, rankSelfAntiAffinity, rankInterAntiAffinity)
	for i, name := range t.taskOrder {
		m.order[name] = len(t.taskOrder) - i
	}
	return m
}

// applyGroups records a group of one role as a rule about the role's own
// pods and a larger group as a rule between each pair of its roles.
func (m *jobManager) applyGroups(groups [][]string, self map[string]bool, inter map[string]map[string]bool, selfRank, interRank int) {
	for _, g := range groups {
		if len(g) == 1 {
			self[g[0]] = true
			m.raise(g[0], selfRank)
			continue
		}
		for i, src := range g {
			for _, dst := range g[:i] {
				link(inter, src, dst)
				link(inter, dst, src)
			}
			m.raise(src, interRank)
		}
	}
}

func link(m map[string]map[string]bool, a, b string) {
	if m[a] == nil {
		m[a] = map[string]bool{}
	}
	m[a][b] = true
}

func (m *jobManager) raise(role string, rank int) {
	if rank > m.rank[role] {
		m.rank[role] = rank
	}
}

// bucketRole is the role a pod is bucketed by: its volcano.sh/task-spec
// annotation only, as Volcano's plugin reads it (the label, which the
// job's minimums also read, does not count here).
func bucketRole(t *api.TaskInfo) string {
	if t.Pod == nil {
		return ""
	}
	return t.Pod.Annotations[api.TaskSpecKey]
}

// build puts the job's pods of roles with a rule into buckets.
func (m *jobManager) build(job *api.JobInfo) {
	var tasks []*api.TaskInfo
	for _, t := range job.Tasks {
		role := bucketRole(t)
		if role == "" || m.rank[role] == 0 {
			continue
		}
		m.role[t.UID] = role
		m.req[t.UID] = requestOf(t)
		tasks = append(tasks, t)
	}
	sort.Slice(tasks, func(i, j int) bool { return m.bucketingBefore(tasks[i], tasks[j]) })

	byNode := map[string]*bucket{}
	for seq, t := range tasks {
		role := m.role[t.UID]
		var chosen *bucket
		best := math.MinInt32
		if t.NodeName != "" {
			best, chosen = 0, byNode[t.NodeName]
		} else {
			for _, b := range m.buckets {
				aff := m.affinity(role, b.roles, false)
				if aff > best || (aff == best && chosen != nil && b.reqScore < chosen.reqScore) {
					best, chosen = aff, b
				}
			}
		}
		if best < 0 || chosen == nil {
			chosen = newBucket(len(m.buckets))
			m.buckets = append(m.buckets, chosen)
			if t.NodeName != "" {
				byNode[t.NodeName] = chosen
			}
		}
		m.bucketOf[t.UID] = chosen.index
		chosen.add(role, t, seq, m.req[t.UID])
		if size := len(chosen.pending) + chosen.bound; size > m.largest {
			m.largest = size
		}
	}
}

// bucketingBefore orders pods for bucketing: pods on a node first (by node
// name), then pending pods by role order and by name.
func (m *jobManager) bucketingBefore(a, b *api.TaskInfo) bool {
	aOn, bOn := a.NodeName != "", b.NodeName != ""
	if aOn != bOn {
		return aOn
	}
	if aOn && a.NodeName != b.NodeName {
		return a.NodeName < b.NodeName
	}
	if !aOn {
		if c := m.roleOrder(a, b); c != 0 {
			return c > 0
		}
	}
	return a.Name < b.Name
}

// roleOrder compares two bucketed pods' roles: 1 when a's is placed
// first, -1 when b's is, 0 for the same role or rules alike.
func (m *jobManager) roleOrder(a, b *api.TaskInfo) int {
	ra, rb := m.role[a.UID], m.role[b.UID]
	if ra == rb {
		return 0
	}
	if oa, ob := m.order[ra], m.order[rb]; oa != ob {
		return sign(oa - ob)
	}
	return sign(m.rank[ra] - m.rank[rb])
}

func sign(v int) int {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// affinity is how much a pod of role is drawn to pods counted by role in
// set: one per pod it has affinity with, minus one per pod it has
// anti-affinity with (only the latter with onlyAnti).
func (m *jobManager) affinity(role string, set map[string]int, onlyAnti bool) int {
	if role == "" {
		return 0
	}
	total := 0
	for other, n := range set {
		same := other == role
		if !onlyAnti && ((same && m.selfAffinity[role]) || (!same && m.interAffinity[role][other])) {
			total += n
		}
		if (same && m.selfAnti[role]) || (!same && m.interAnti[role][other]) {
			total -= n
		}
	}
	return total
}

func (m *jobManager) bucketOfTask(t *api.TaskInfo) *bucket {
	i, ok := m.bucketOf[t.UID]
	if !ok {
		return nil
	}
	return m.buckets[i]
}

// allocated counts a pod that an allocate event put on a node.
func (m *jobManager) allocated(t *api.TaskInfo) {
	if _, done := m.placed[t.UID]; done || t.NodeName == "" {
		return
	}
	pl := placement{node: t.NodeName}
	if role := bucketRole(t); role != "" {
		if m.onNode[t.NodeName] == nil {
			m.onNode[t.NodeName] = map[string]int{}
		}
		m.onNode[t.NodeName][role]++
	}
	if b := m.bucketOfTask(t); b != nil {
		pl.entry, pl.wasPending = b.place(t, t.NodeName)
	}
	m.placed[t.UID] = pl
}

// deallocated takes back what allocated counted for the pod.
func (m *jobManager) deallocated(t *api.TaskInfo) {
	pl, done := m.placed[t.UID]
	if !done {
		return
	}
	delete(m.placed, t.UID)
	if role := bucketRole(t); role != "" {
		if m.onNode[pl.node][role]--; m.onNode[pl.node][role] == 0 {
			delete(m.onNode[pl.node], role)
		}
	}
	if b := m.bucketOfTask(t); b != nil {
		b.unplace(pl.entry, pl.wasPending, pl.node)
	}
}

// bucket is a group of a job's pods meant to share nodes.
type bucket struct {
	index int
	// pending holds the bucket's pods not on a node, in bucketing order.
	pending []pendingPod
	// roles counts the bucket's pods per role, placed or not.
	roles map[string]int
	// request sums the pending pods' requests (without the pods count);
	// reqScore is its size, milli-CPU + MiB + extended milli-units.
	request  *api.Resource
	reqScore float64
	// bound counts the bucket's pods on a node; onNode counts them per node.
	bound  int
	onNode map[string]int
}

// pendingPod is a pod waiting in a bucket: seq is its place in bucketing
// order, req its request without the pods count.
type pendingPod struct {
	task *api.TaskInfo
	seq  int
	req  *api.Resource
}

func newBucket(index int) *bucket {
	return &bucket{index: index, roles: map[string]int{}, request: api.EmptyResource(), onNode: map[string]int{}}
}

func (b *bucket) add(role string, t *api.TaskInfo, seq int, req *api.Resource) {
	b.roles[role]++
	if t.NodeName != "" {
		b.onNode[t.NodeName]++
		b.bound++
		return
	}
	p := pendingPod{task: t, seq: seq, req: req}
	b.pending = append(b.pending, p)
	b.addRequest(p.req, 1)
}

// place moves a pending pod onto node; it returns the pod's entry so that
// unplace can put it back.
func (b *bucket) place(t *api.TaskInfo, node string) (pendingPod, bool) {
	b.onNode[node]++
	b.bound++
	for i, p := range b.pending {
		if p.task.UID == t.UID {
			b.pending = append(b.pending[:i], b.pending[i+1:]...)
			b.addRequest(p.req, -1)
			return p, true
		}
	}
	return pendingPod{}, false
}

func (b *bucket) unplace(p pendingPod, wasPending bool, node string) {
	if b.onNode[node]--; b.onNode[node] == 0 {
		delete(b.onNode, node)
	}
	b.bound--
	if !wasPending {
		return
	}
	at := sort.Search(len(b.pending), func(i int) bool { return b.pending[i].seq > p.seq })
	b.pending = append(b.pending[:at], append([]pendingPod{p}, b.pending[at:]...)...)
	b.addRequest(p.req, 1)
}

// addRequest adds (sign 1) or takes away (-1) a pending pod's request.
func (b *bucket) addRequest(req *api.Resource, sign float64) {
	score := req.MilliCPU + req.Memory/1024/1024
	for _, q := range req.Scalars {
		score += q
	}
	b.reqScore += sign * score
	if sign > 0 {
		b.request.Add(req)
	} else {
		b.request.Sub(req)
	}
}

// requestOf is a pod's request without the pods count, which Caldera adds
// to every request and Volcano's plugin does not see.
func requestOf(t *api.TaskInfo) *api.Resource {
	if t.Resreq == nil {
		return api.EmptyResource()
	}
	if _, ok := t.Resreq.Scalars[v1.ResourcePods]; !ok {
		return t.Resreq
	}
	r := t.Resreq.Clone()
	delete(r.Scalars, v1.ResourcePods)
	return r
}
