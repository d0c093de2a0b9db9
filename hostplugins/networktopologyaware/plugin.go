package networktopologyaware

import (
	"math"
	"sort"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Name is the plugin's name in the scheduler configuration.
const Name = "network-topology-aware"

// maxNodeScore is kube-scheduler's framework.MaxNodeScore, by which Volcano
// scales the plugin's scores.
const maxNodeScore = 100

// Plugin scores hypernodes and nodes by network topology and offers the
// gradients of hypernodes allocate searches.
type Plugin struct {
	args args
	ssn  *framework.Session
	// minTier and maxTier bound the session's tiers (the cluster top's
	// included).
	minTier, maxTier int
	// usage is each hypernode's resources: used follows the session's
	// decisions; allocatable, idle and futureIdle are as the session opened.
	usage map[string]*hyperNodeUsage
	// holding lists, per node, the hypernodes that hold it.
	holding map[string][]string
	// For normal pods' scores: the session's hypernodes by index, and per
	// node the index of its hypernode at each tier from minTier (-1 for
	// none); scratch holds one call's binpack score per hypernode.
	byIndex []string
	atTier  map[string][]int
	scratch []float64
	scored  []bool
	// tierWeights is fading^(tier-1) per tier from minTier; tierTotal
	// their sum.
	tierWeights []float64
	tierTotal   float64
}

type hyperNodeUsage struct {
	allocatable, used, idle, futureIdle *api.Resource
}

var (
	_ framework.HyperNodeGradienter = &Plugin{}
	_ framework.HyperNodeScorer     = &Plugin{}
	_ framework.BatchNodeScorer     = &Plugin{}
	_ framework.EventHandler        = &Plugin{}
)

// New parses the arguments; a value of the wrong type or an unknown key is
// an error naming it.
func New(a framework.Arguments) (framework.Plugin, error) {
	parsed, err := parseArgs(a)
	if err != nil {
		return nil, err
	}
	return &Plugin{args: parsed}, nil
}

// Name returns "network-topology-aware".
func (p *Plugin) Name() string { return Name }

// OnSessionOpen sums each hypernode's nodes.
func (p *Plugin) OnSessionOpen(ssn *framework.Session) {
	p.ssn = ssn
	h := ssn.HyperNodes
	if len(h.Tiers) > 0 {
		p.minTier, p.maxTier = h.Tiers[0], h.Tiers[len(h.Tiers)-1]
	}
	p.usage = make(map[string]*hyperNodeUsage, len(h.Info))
	p.holding = make(map[string][]string, len(ssn.NodeList))
	p.indexTiers()
	for name, hn := range h.Info {
		u := &hyperNodeUsage{allocatable: api.EmptyResource(), used: api.EmptyResource(), idle: api.EmptyResource(), futureIdle: api.EmptyResource()}
		for _, n := range hn.Nodes {
			p.holding[n.Name] = append(p.holding[n.Name], name)
			u.allocatable.Add(n.Allocatable)
			u.used.Add(n.Used)
			u.idle.Add(n.Idle)
			u.futureIdle.Add(n.FutureIdle())
		}
		p.usage[name] = u
	}
}

// indexTiers numbers the hypernodes and records each node's hypernode per
// tier, so that scoring a pod over thousands of nodes reads arrays.
func (p *Plugin) indexTiers() {
	h := p.ssn.HyperNodes
	p.byIndex = h.Names()
	p.atTier = make(map[string][]int, len(p.ssn.NodeList))
	tiers := p.maxTier - p.minTier + 1
	for i, name := range p.byIndex {
		hn := h.Info[name]
		if hn.Tier < p.minTier || hn.Tier > p.maxTier {
			continue
		}
		for _, n := range hn.Nodes {
			at := p.atTier[n.Name]
			if at == nil {
				at = make([]int, tiers)
				for t := range at {
					at[t] = -1
				}
				p.atTier[n.Name] = at
			}
			if at[hn.Tier-p.minTier] < 0 {
				at[hn.Tier-p.minTier] = i
			}
		}
	}
	p.scratch, p.scored = make([]float64, len(p.byIndex)), make([]bool, len(p.byIndex))
	p.tierWeights, p.tierTotal = make([]float64, tiers), 0
	for t := range p.tierWeights {
		p.tierWeights[t] = math.Pow(p.args.fading, float64(p.minTier+t-1))
		p.tierTotal += p.tierWeights[t]
	}
}

// OnSessionClose drops the session's state.
func (p *Plugin) OnSessionClose(*framework.Session) {
	p.ssn, p.usage, p.holding, p.atTier = nil, nil, nil, nil
}

// OnAllocate charges the task to every hypernode holding its node.
func (p *Plugin) OnAllocate(t *api.TaskInfo) { p.charge(t, 1) }

// OnDeallocate gives it back.
func (p *Plugin) OnDeallocate(t *api.TaskInfo) { p.charge(t, -1) }

func (p *Plugin) charge(t *api.TaskInfo, sign float64) {
	for _, name := range p.holding[t.NodeName] {
		if sign > 0 {
			p.usage[name].used.Add(t.Resreq)
		} else {
			p.usage[name].used.Sub(t.Resreq)
		}
	}
}

// HyperNodeGradient lists, for a job in hard mode (soft mode is hard up
// to the cluster top by now), the hypernodes in the subtree it may use,
// grouped by tier, lowest first: those of at most its highest allowed
// tier that have idle (or soon idle) room for its minResources (for the
// job's search) or for what its pending tasks request (within a
// hypernode), or any such hypernode once the job holds some. A job already placed somewhere
// is searched under the highest hypernode above its placement that its
// tier allows. Other jobs may go anywhere within.
//
// For eviction a hypernode is judged by its allocatable room instead of its
// idle room, and the gradients come widest first, at most
// hypernode.gradient.evict.max-hypernodes hypernodes in all (the narrowest
// of the last gradient dropped first), as Volcano's
// reverseAndCapEvictionGradients.
//
// A sub-job's search (sj set) follows the sub-job's own topology and
// placement and needs room for its pending tasks, as Volcano's
// HyperNodeGradientForSubJobFn.
func (p *Plugin) HyperNodeGradient(job *api.JobInfo, sj *api.SubJobInfo, within *api.HyperNodeInfo, scope framework.GradientScope, purpose framework.SearchPurpose) [][]*api.HyperNodeInfo {
	hard, highest := job.HardTopology()
	allocated := job.AllocatedHyperNode
	if sj != nil && scope == framework.ScopeTasks {
		hard, highest = sj.HardTopology()
		allocated = sj.AllocatedHyperNode
	}
	if !hard {
		return [][]*api.HyperNodeInfo{{within}}
	}
	h := p.ssn.HyperNodes
	root := p.searchRoot(within, highest, allocated)
	if root == nil {
		return nil
	}
	minReq := job.GetMinResources()
	switch {
	case scope == framework.ScopeTasks && sj != nil:
		minReq = sj.GetMinResources()
	case scope == framework.ScopeTasks:
		minReq = api.EmptyResource()
		for _, t := range job.TaskStatusIndex[api.Pending] {
			minReq.Add(t.InitResreq)
		}
	}
	byTier := map[int][]*api.HyperNodeInfo{}
	for queue := []*api.HyperNodeInfo{root}; len(queue) > 0; queue = queue[1:] {
		hn := queue[0]
		if p.eligible(hn, highest, allocated, minReq, purpose) {
			byTier[hn.Tier] = append(byTier[hn.Tier], hn)
		}
		for _, c := range hn.Children {
			if child := h.Info[c]; child != nil {
				queue = append(queue, child)
			}
		}
	}
	tiers := make([]int, 0, len(byTier))
	for t := range byTier {
		tiers = append(tiers, t)
	}
	sort.Ints(tiers)
	out := make([][]*api.HyperNodeInfo, 0, len(tiers))
	for _, t := range tiers {
		g := byTier[t]
		sort.Slice(g, func(a, b int) bool { return g[a].Name < g[b].Name })
		out = append(out, g)
	}
	if purpose == framework.PurposeEvict {
		return widestFirst(out, p.args.evictMaxNodes)
	}
	return out
}

// widestFirst reverses the gradients and keeps at most limit hypernodes,
// cutting the first gradient that overflows to its last names.
func widestFirst(gradients [][]*api.HyperNodeInfo, limit int) [][]*api.HyperNodeInfo {
	out := make([][]*api.HyperNodeInfo, 0, len(gradients))
	for i := len(gradients) - 1; i >= 0 && limit > 0; i-- {
		g := gradients[i]
		if len(g) > limit {
			g = g[len(g)-limit:]
		}
		out = append(out, g)
		limit -= len(g)
	}
	return out
}

func (p *Plugin) eligible(hn *api.HyperNodeInfo, highest int, allocated string, minReq *api.Resource, purpose framework.SearchPurpose) bool {
	if hn.Tier > highest {
		return false
	}
	if allocated != "" {
		return true
	}
	u, ok := p.usage[hn.Name]
	if !ok {
		return true
	}
	if purpose == framework.PurposeEvict {
		return minReq.LessEqual(u.allocatable, api.Zero)
	}
	return minReq.LessEqual(u.idle, api.Zero) || minReq.LessEqual(u.futureIdle, api.Zero)
}

// searchRoot narrows within to what a job placed under allocated may use:
// the highest ancestor of allocated within the tier limit, when it lies
// inside within; within itself when it lies inside that ancestor; nil
// when they do not meet.
func (p *Plugin) searchRoot(within *api.HyperNodeInfo, highest int, allocated string) *api.HyperNodeInfo {
	if allocated == "" {
		return within
	}
	h := p.ssn.HyperNodes
	limit := ""
	for _, anc := range h.Ancestors(allocated) {
		hn := h.Info[anc]
		if hn == nil || hn.Tier > highest {
			break
		}
		limit = anc
	}
	if limit == "" {
		return nil
	}
	switch h.LCA(within.Name, limit) {
	case limit:
		return within
	case within.Name:
		return h.Info[limit]
	}
	return nil
}

// HyperNodeOrder scores each hypernode by how full it would be with all
// the job's tasks (the sub-job's, when sj is set) in it (weighted over the
// binpack resources, 0 when they would not fit); where several share the
// highest score, the share of those tasks already in each is added. Scores
// are scaled to 0..100 times weight.
func (p *Plugin) HyperNodeOrder(job *api.JobInfo, sj *api.SubJobInfo, hyperNodes []*api.HyperNodeInfo) (map[string]float64, error) {
	tasks := job.Tasks
	if sj != nil {
		tasks = sj.Tasks
	}
	request := api.EmptyResource()
	for _, t := range tasks {
		request.Add(t.Resreq)
	}
	scores := make(map[string]float64, len(hyperNodes))
	maxScore, atMax := -1.0, 0
	for _, hn := range hyperNodes {
		s := p.binpackScore(hn.Name, request)
		scores[hn.Name] = s
		switch {
		case s > maxScore:
			maxScore, atMax = s, 1
		case s == maxScore:
			atMax++
		}
	}
	if atMax > 1 {
		for _, hn := range hyperNodes {
			if scores[hn.Name] == maxScore {
				scores[hn.Name] += taskShare(hn, tasks)
			}
		}
	}
	return p.scale(scores), nil
}

// binpackScore is how full the hypernode would be with request added,
// averaged over the binpack resources the request asks for by their
// weights; 0 when request would not fit in one of them.
func (p *Plugin) binpackScore(hyperNode string, request *api.Resource) float64 {
	u, ok := p.usage[hyperNode]
	if !ok {
		return 0
	}
	total, weights := 0.0, 0
	for _, rn := range request.ResourceNames() {
		w, ok := p.args.binpackWeight(rn)
		if !ok {
			continue
		}
		alloc, used, req := u.allocatable.Get(rn), u.used.Get(rn), request.Get(rn)
		if used+req > alloc {
			return 0
		}
		total += float64(w) * (used + req) / alloc
		weights += w
	}
	if weights <= 0 {
		return 0
	}
	return total / float64(weights)
}

// taskShare is the share of the tasks on the hypernode's nodes.
func taskShare(hn *api.HyperNodeInfo, tasks api.TasksMap) float64 {
	if len(tasks) == 0 {
		return 1
	}
	n := 0
	for _, t := range tasks {
		if t.NodeName != "" && hn.NodeSet[t.NodeName] {
			n++
		}
	}
	return float64(n) / float64(len(tasks))
}

func (p *Plugin) scale(scores map[string]float64) map[string]float64 {
	for k, s := range scores {
		scores[k] = maxNodeScore * float64(p.args.weight) * s
	}
	return scores
}

// BatchNodeOrder scores nodes for a task. For a job with a network
// topology: by how low the hypernode joining the node's lowest hypernode
// and the job's placement so far is ((maxTier - tier) / (maxTier -
// minTier), 1 on the placement itself), with the share of the job's tasks
// on each best node's lowest hypernode added to break ties. For other
// tasks, when hypernode binpacking of normal pods is on: each tier's
// hypernode binpack score of the task, weighted by fading^(tier-1) (a
// node in no hypernode of a tier counts 1 there). In a job with sub-group
// policies the task's sub-job stands for the job: its topology decides,
// and its tasks break ties.
func (p *Plugin) BatchNodeOrder(task *api.TaskInfo, nodes []*api.NodeInfo, totals []float64) error {
	job := p.ssn.Jobs[task.Job]
	if job == nil {
		return nil
	}
	topology, tasks := job.NetworkTopology != nil, job.Tasks
	if sj := job.SubJobOf(task.UID); sj != nil {
		topology, tasks = sj.NetworkTopology != nil, sj.Tasks
	}
	scores := make([]float64, len(nodes))
	if topology {
		if !p.topologyScores(task, tasks, nodes, scores) {
			return nil
		}
	} else if !p.normalScores(task, nodes, scores) {
		return nil
	}
	for i, s := range scores {
		totals[i] += maxNodeScore * float64(p.args.weight) * s
	}
	return nil
}

func (p *Plugin) topologyScores(task *api.TaskInfo, tasks api.TasksMap, nodes []*api.NodeInfo, scores []float64) bool {
	placed := task.JobAllocatedHyperNode
	if placed == "" {
		return false
	}
	h := p.ssn.HyperNodes
	best, atBest := -1.0, 0
	for i, n := range nodes {
		scores[i] = p.lcaScore(h.LowestOf(n.Name), placed)
		switch {
		case scores[i] > best:
			best, atBest = scores[i], 1
		case scores[i] == best:
			atBest++
		}
	}
	if atBest > 1 {
		for i, n := range nodes {
			if scores[i] != best {
				continue
			}
			if hn := h.Info[h.LowestOf(n.Name)]; hn != nil {
				scores[i] += taskShare(hn, tasks)
			}
		}
	}
	return true
}

func (p *Plugin) lcaScore(hyperNode, placed string) float64 {
	if hyperNode == "" {
		return 0
	}
	if hyperNode == placed {
		return 1
	}
	lca := p.ssn.HyperNodes.Info[p.ssn.HyperNodes.LCA(hyperNode, placed)]
	if lca == nil {
		return 0
	}
	return p.tierScore(lca.Tier)
}

func (p *Plugin) tierScore(tier int) float64 {
	if p.minTier == p.maxTier {
		return 1
	}
	if tier < p.minTier || tier > p.maxTier {
		return 0
	}
	return float64(p.maxTier-tier) / float64(p.maxTier-p.minTier)
}

func (p *Plugin) normalScores(task *api.TaskInfo, nodes []*api.NodeInfo, scores []float64) bool {
	if !p.args.normalPods {
		return false
	}
	if p.tierTotal <= 0 {
		return false
	}
	clear(p.scored)
	for i, n := range nodes {
		at := p.atTier[n.Name]
		sum := 0.0
		for t, w := range p.tierWeights {
			score := 1.0
			if at != nil && at[t] >= 0 {
				idx := at[t]
				if !p.scored[idx] {
					p.scratch[idx], p.scored[idx] = p.binpackScore(p.byIndex[idx], task.Resreq), true
				}
				score = p.scratch[idx]
			}
			sum += w * score
		}
		scores[i] = sum / p.tierTotal
	}
	return true
}
