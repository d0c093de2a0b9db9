package podrules

import caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"

// Index is what the rules read of a session: its nodes' labels, the pods
// counted on nodes, and namespaces' labels. Pods placed and removed during
// the session are logged, so that template states can catch up.
//
// Every counted pod is in all and in byLabel under each of its labels;
// requiredAnti files those with required anti-affinity terms, scoring
// those with the terms the affinity score reads of existing pods. A state
// built mid-session walks only the sets that can hold pods which change
// it (sources), not every pod.
type Index struct {
	nodes      []caldera.Node
	namespaces caldera.NamespaceLabels
	byTask     []*Pod // the counted pod of each task handle, or nil
	log        []change
	// slots holds a Pod per task handle, allocated at once, for its first
	// placement; slotUsed marks those taken. A task placed again gets a
	// new Pod: log entries point at the old one, whose node they need.
	slots    []Pod
	slotUsed []bool

	all          podSet
	byLabel      map[labelHash]podSet
	requiredAnti termIndex
	scoring      termIndex

	domains map[string]*keyDomains
	// eligible holds the spread filters' nodes and domains per list of
	// keys (eligibleFor).
	eligible map[string]*keysEligibility
}

// Pod is a pod counted on a node: a task of the view or one of a node's
// Others.
type Pod struct {
	Namespace   string
	Labels      map[string]string
	Terminating bool
	// Affinity and Anti are its podAffinity and podAntiAffinity terms;
	// kinds that do not parse are left out, as kube-scheduler's NodeInfo
	// leaves them out of pods already on nodes.
	Affinity, Anti *caldera.PodAffinity
	Node           int32
}

// podSet is a set of counted pods. Pointer keys hash without allocating
// in TinyGo, where string and struct keys allocate at every lookup.
type podSet map[*Pod]struct{}

// labelHash digests one label, key and value. Sets are filed by it
// because a map keyed by strings allocates at every lookup in TinyGo, and
// an integer key does not; two labels of one digest share a set, which
// only makes a state's first walk visit pods its apply then ignores.
type labelHash uint64

func hashLabel(key, value string) labelHash {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for i := 0; i < len(key); i++ {
		h = (h ^ uint64(key[i])) * prime
	}
	h = (h ^ 0xff) * prime // no label key holds 0xff: key and value stay apart
	for i := 0; i < len(value); i++ {
		h = (h ^ uint64(value[i])) * prime
	}
	return labelHash(h)
}

type change struct {
	pod   *Pod
	delta int64
}

// NewIndex counts the pods on the view's nodes.
func NewIndex(v *caldera.View) *Index {
	idx := &Index{nodes: v.Nodes, namespaces: v.Namespaces, byTask: make([]*Pod, len(v.Tasks)),
		slots: make([]Pod, len(v.Tasks)), slotUsed: make([]bool, len(v.Tasks)),
		all: podSet{}, byLabel: map[labelHash]podSet{}, requiredAnti: newTermIndex(), scoring: newTermIndex(),
		domains: map[string]*keyDomains{}}
	for i := range v.Nodes {
		for j := range v.Nodes[i].Others {
			o := &v.Nodes[i].Others[j]
			idx.remember(&Pod{Namespace: o.Namespace, Labels: o.Labels, Terminating: o.Terminating,
				Affinity: o.PodAffinity, Anti: o.PodAntiAffinity, Node: int32(i)})
		}
	}
	for i := range v.Tasks {
		if t := &v.Tasks[i]; t.Node >= 0 && int(t.Node) < len(v.Nodes) {
			idx.byTask[i] = idx.taskPod(t)
			idx.remember(idx.byTask[i])
		}
	}
	return idx
}

func (idx *Index) taskPod(t *caldera.Task) *Pod {
	var p *Pod
	if h := t.Handle; !idx.slotUsed[h] {
		idx.slotUsed[h] = true
		p = &idx.slots[h]
	} else {
		p = &Pod{}
	}
	*p = Pod{Namespace: t.Namespace, Labels: t.Labels, Terminating: t.Terminating,
		Affinity: t.PodAffinity, Anti: t.PodAntiAffinity, Node: t.Node}
	return p
}

// Add counts a task placed (or placed again) on its node.
func (idx *Index) Add(t *caldera.Task) {
	if int(t.Handle) >= len(idx.byTask) || idx.byTask[t.Handle] != nil || t.Node < 0 || int(t.Node) >= len(idx.nodes) {
		return
	}
	p := idx.taskPod(t)
	idx.byTask[t.Handle] = p
	idx.remember(p)
	idx.log = append(idx.log, change{p, 1})
}

// Remove stops counting a task, wherever it was counted.
func (idx *Index) Remove(t *caldera.Task) {
	if int(t.Handle) >= len(idx.byTask) {
		return
	}
	p := idx.byTask[t.Handle]
	if p == nil {
		return
	}
	idx.byTask[t.Handle] = nil
	idx.forget(p)
	idx.log = append(idx.log, change{p, -1})
}

// remember puts a pod into the sets; forget takes it out.
func (idx *Index) remember(p *Pod) {
	idx.all[p] = struct{}{}
	for k, v := range p.Labels {
		lp := hashLabel(k, v)
		set := idx.byLabel[lp]
		if set == nil {
			set = podSet{}
			idx.byLabel[lp] = set
		}
		set[p] = struct{}{}
	}
	idx.requiredAnti.add(p, required(p.Anti), nil, nil)
	idx.scoring.add(p, required(p.Affinity), preferred(p.Affinity), preferred(p.Anti))
}

func (idx *Index) forget(p *Pod) {
	delete(idx.all, p)
	for k, v := range p.Labels {
		delete(idx.byLabel[hashLabel(k, v)], p)
	}
	idx.requiredAnti.remove(p, required(p.Anti), nil, nil)
	idx.scoring.remove(p, required(p.Affinity), preferred(p.Affinity), preferred(p.Anti))
}

// eachPod calls f once for every counted pod in any of the sets; with nil
// sets, for every counted pod.
func (idx *Index) eachPod(sets []podSet, f applier) {
	if sets == nil {
		for p := range idx.all {
			f.apply(p, 1)
		}
		return
	}
	for i, set := range sets {
	pods:
		for p := range set {
			for _, earlier := range sets[:i] {
				if _, seen := earlier[p]; seen {
					continue pods
				}
			}
			f.apply(p, 1)
		}
	}
}

// nodeLabels returns a node's labels by handle.
func (idx *Index) nodeLabels(node int32) map[string]string { return idx.nodes[node].Labels }

// applier is a state that counts (delta 1) or uncounts (-1) a pod. An
// interface rather than a func value: a bound method value allocates in
// TinyGo each time it is made.
type applier interface {
	apply(p *Pod, delta int64)
}

// follower keeps a state current with its Index: the state applies each
// pod of its sources once when built, then each log entry it has not seen.
type follower struct {
	idx  *Index
	seen int
}

// start applies every pod counted now that is in src (every pod for a nil
// src; see sources).
func (f *follower) start(idx *Index, src []podSet, a applier) {
	f.idx = idx
	idx.eachPod(src, a)
	f.seen = len(idx.log)
}

func (f *follower) catchUp(a applier) {
	if f.idx == nil { // a state whose pod does not parse
		return
	}
	log := f.idx.log
	for ; f.seen < len(log); f.seen++ {
		a.apply(log[f.seen].pod, log[f.seen].delta)
	}
}
