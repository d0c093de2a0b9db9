// Command network-topology-aware is the Wasm port of Caldera's native
// network-topology-aware plugin (Volcano v1.15's): it offers the
// hypernode gradients of allocate's and gang eviction's search, scores
// hypernodes by how full a job would leave them, and scores nodes by how
// close they are to what a job with a network topology placed so far, or,
// for other pods, by how full each tier's hypernode would be. It reads the
// hypernodes and each job's network topology from the session view and
// the job's current placement from the hooks' arguments (ABI 1.9).
//
// hostplugins/networktopologyaware/doc.go says what it decides; this port
// decides the same with the same arguments and defaults.
package main

import (
	"math"
	"slices"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

func main() {}

func init() { caldera.Register(&plugin{}) }

// maxNodeScore is kube-scheduler's framework.MaxNodeScore, by which
// Volcano scales the plugin's scores.
const maxNodeScore = 100

// plugin holds one session's index of the hypernodes, by handle.
type plugin struct {
	args args
	topo topology
	// usage is each hypernode's resources: used follows the session's
	// placements; allocatable, idle and futureIdle are as it opened.
	usage []usage
	// taskNode is the node each task was last charged on, by task handle:
	// a deallocation's event names no node.
	taskNode []int32
	// tierWeights is fading^(tier-1) per tier from minTier; tierTotal
	// their sum.
	tierWeights []float64
	tierTotal   float64
	// Scratch of one call.
	scratch []float64
	scored  []bool
	names   []string
}

type usage struct {
	allocatable, used, idle, futureIdle amount
}

func (*plugin) Name() string { return "network-topology-aware" }

// OnSessionOpen reads the arguments and sums each hypernode's nodes.
func (p *plugin) OnSessionOpen(s *caldera.Session) error {
	a, err := readArgs(s)
	if err != nil {
		return err
	}
	p.args = a
	v := &s.View
	p.topo.index(v.HyperNodes, len(v.Nodes))
	p.usage = make([]usage, len(v.HyperNodes))
	for h := range v.HyperNodes {
		u := &p.usage[h]
		for _, n := range p.topo.nodes[h] {
			node := &v.Nodes[n]
			u.allocatable.add(&node.Allocatable, 1)
			u.used.add(&node.Used, 1)
			u.idle.add(&node.Idle, 1)
			u.futureIdle.add(&node.Idle, 1)
			u.futureIdle.add(&node.Releasing, 1)
			u.futureIdle.add(&node.Pipelined, -1)
		}
	}
	p.taskNode = p.taskNode[:0]
	for i := range v.Tasks {
		p.taskNode = append(p.taskNode, v.Tasks[i].Node)
	}
	tiers := 0
	if len(v.HyperNodes) > 0 {
		tiers = int(p.topo.maxTier-p.topo.minTier) + 1
	}
	p.tierWeights, p.tierTotal = make([]float64, tiers), 0
	for t := range p.tierWeights {
		p.tierWeights[t] = math.Pow(p.args.fading, float64(int(p.topo.minTier)+t-1))
		p.tierTotal += p.tierWeights[t]
	}
	p.scratch, p.scored = make([]float64, len(v.HyperNodes)), make([]bool, len(v.HyperNodes))
	return nil
}

// OnAllocate charges the task to every hypernode holding its node.
func (p *plugin) OnAllocate(_ *caldera.Session, t *caldera.Task) {
	p.charge(t, t.Node, 1)
	p.taskNode[t.Handle] = t.Node
}

// OnDeallocate gives it back, on the node it leaves.
func (p *plugin) OnDeallocate(_ *caldera.Session, t *caldera.Task) {
	node := t.Node
	if node < 0 {
		node = p.taskNode[t.Handle]
	}
	p.charge(t, node, -1)
	p.taskNode[t.Handle] = t.Node
}

func (p *plugin) charge(t *caldera.Task, node int32, sign float64) {
	if node < 0 || int(node) >= len(p.topo.holding) {
		return
	}
	for _, h := range p.topo.holding[node] {
		p.usage[h].used.add(&t.Request, sign)
	}
}

// HyperNodeGradient lists, for a job in hard mode, the hypernodes in the
// subtree it may use, grouped by tier, lowest first, each group in name
// order: those of at most its highest allowed tier with idle (or soon
// idle) room for its minResources (the job's search) or its pending tasks'
// requests (within a hypernode), or any once the job holds some; a job
// placed somewhere is searched under the highest hypernode above its
// placement that its tier allows. For eviction room is allocatable room
// and the gradients come widest first, at most
// hypernode.gradient.evict.max-hypernodes hypernodes in all.
func (p *plugin) HyperNodeGradient(s *caldera.Session, search caldera.HyperNodeSearch) [][]*caldera.HyperNode {
	v := &s.View
	within := search.Within
	if within == nil {
		if p.topo.top < 0 {
			return nil
		}
		within = &v.HyperNodes[p.topo.top]
	}
	nt := search.Job.NetworkTopology
	if nt == nil || nt.HighestTier == nil || nt.Mode != caldera.TopologyHard {
		return [][]*caldera.HyperNode{{within}}
	}
	highest := *nt.HighestTier
	allocated := int32(-1)
	if search.Allocated != nil {
		allocated = search.Allocated.Handle
	}
	root := p.searchRoot(within.Handle, highest, allocated)
	if root < 0 {
		return nil
	}
	var minReq amount
	if search.Scope == caldera.ScopeTasks {
		for _, t := range search.Job.Tasks {
			if t.Status == caldera.Pending {
				minReq.add(&t.InitRequest, 1)
			}
		}
	} else {
		minReq = amountOf(&search.Job.MinResources)
	}
	byTier := map[int32][]int32{}
	for _, h := range p.topo.subtree(root) {
		if p.eligible(h, highest, allocated, &minReq, search.Purpose) {
			tier := p.topo.tier[h]
			byTier[tier] = append(byTier[tier], h)
		}
	}
	tiers := make([]int32, 0, len(byTier))
	for t := range byTier {
		tiers = append(tiers, t)
	}
	slices.Sort(tiers)
	out := make([][]*caldera.HyperNode, 0, len(tiers))
	for _, t := range tiers {
		g := byTier[t]
		slices.Sort(g) // handles are in name order
		group := make([]*caldera.HyperNode, len(g))
		for i, h := range g {
			group[i] = &v.HyperNodes[h]
		}
		out = append(out, group)
	}
	if search.Purpose == caldera.PurposeEvict {
		return widestFirst(out, int(p.args.evictMax))
	}
	return out
}

// widestFirst reverses the gradients and keeps at most limit hypernodes,
// cutting the first gradient that overflows to its last names.
func widestFirst(gradients [][]*caldera.HyperNode, limit int) [][]*caldera.HyperNode {
	out := make([][]*caldera.HyperNode, 0, len(gradients))
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

func (p *plugin) eligible(h int32, highest, allocated int32, minReq *amount, purpose caldera.SearchPurpose) bool {
	if p.topo.tier[h] > highest {
		return false
	}
	if allocated >= 0 {
		return true
	}
	u := &p.usage[h]
	if purpose == caldera.PurposeEvict {
		return minReq.lessEqual(&u.allocatable)
	}
	return minReq.lessEqual(&u.idle) || minReq.lessEqual(&u.futureIdle)
}

// searchRoot narrows within to what a job placed under allocated may use:
// the highest ancestor of allocated within the tier limit when it lies
// inside within; within when within lies inside it; -1 when they do not
// meet.
func (p *plugin) searchRoot(within, highest, allocated int32) int32 {
	if allocated < 0 {
		return within
	}
	limit := int32(-1)
	for _, anc := range p.topo.ancestors(allocated) {
		if p.topo.tier[anc] > highest {
			break
		}
		limit = anc
	}
	if limit < 0 {
		return -1
	}
	switch p.topo.lca(within, limit) {
	case limit:
		return within
	case within:
		return limit
	}
	return -1
}

// HyperNodeOrder scores each hypernode by how full it would be with all
// the job's tasks in it; where several share the highest score, the share
// of the job's tasks already in each is added. Scores are 0..100 times
// weight.
func (p *plugin) HyperNodeOrder(_ *caldera.Session, search caldera.HyperNodeSearch, hyperNodes []*caldera.HyperNode, scores []float64) error {
	var request amount
	for _, t := range search.Job.Tasks {
		request.add(&t.Request, 1)
	}
	best, atBest := -1.0, 0
	for i, hn := range hyperNodes {
		scores[i] = p.binpackScore(hn.Handle, &request)
		switch {
		case scores[i] > best:
			best, atBest = scores[i], 1
		case scores[i] == best:
			atBest++
		}
	}
	if atBest > 1 {
		for i, hn := range hyperNodes {
			if scores[i] == best {
				scores[i] += p.taskShare(hn.Handle, search.Job)
			}
		}
	}
	for i := range scores {
		scores[i] = maxNodeScore * float64(p.args.weight) * scores[i]
	}
	return nil
}

// binpackScore is how full the hypernode would be with request added,
// averaged over the binpack resources the request asks for by their
// weights; 0 when it would not fit in one of them.
func (p *plugin) binpackScore(h int32, request *amount) float64 {
	u := &p.usage[h]
	total, weights := 0.0, int64(0)
	p.names = request.names(p.names)
	for _, rn := range p.names {
		w, ok := p.args.weightOf(rn)
		if !ok {
			continue
		}
		alloc, used, req := u.allocatable.get(rn), u.used.get(rn), request.get(rn)
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

// taskShare is the share of the job's tasks on the hypernode's nodes.
func (p *plugin) taskShare(h int32, job *caldera.Job) float64 {
	if len(job.Tasks) == 0 {
		return 1
	}
	n := 0
	for _, t := range job.Tasks {
		if t.Node >= 0 && p.topo.holds(h, t.Node) {
			n++
		}
	}
	return float64(n) / float64(len(job.Tasks))
}

// NodeOrderBatch scores nodes for a task. For a job with a network
// topology, while allocate places it and it has placed some: by how low
// the hypernode joining the node's lowest hypernode and the job's
// placement so far is, with the share of the job's tasks on each best
// node's lowest hypernode added to break ties. For other tasks, when
// hypernode binpacking of normal pods is on: each tier's hypernode
// binpack score of the task, weighted by fading^(tier-1).
func (p *plugin) NodeOrderBatch(s *caldera.Session, task *caldera.Task, nodes []*caldera.Node, scores []float64) error {
	if task.Job < 0 || int(task.Job) >= len(s.View.Jobs) {
		return nil
	}
	job := &s.View.Jobs[task.Job]
	if job.NetworkTopology != nil {
		if !p.topologyScores(s, job, nodes, scores) {
			return nil
		}
	} else if !p.normalScores(task, nodes, scores) {
		return nil
	}
	for i := range scores {
		scores[i] = maxNodeScore * float64(p.args.weight) * scores[i]
	}
	return nil
}

func (p *plugin) topologyScores(s *caldera.Session, job *caldera.Job, nodes []*caldera.Node, scores []float64) bool {
	placed := s.JobHyperNode()
	if placed == nil {
		return false
	}
	best, atBest := -1.0, 0
	for i, n := range nodes {
		scores[i] = p.lcaScore(p.topo.lowest[n.Handle], placed.Handle)
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
			if hn := p.topo.lowest[n.Handle]; hn >= 0 {
				scores[i] += p.taskShare(hn, job)
			}
		}
	}
	return true
}

func (p *plugin) lcaScore(h, placed int32) float64 {
	if h < 0 {
		return 0
	}
	if h == placed {
		return 1
	}
	lca := p.topo.lca(h, placed)
	if lca < 0 {
		return 0
	}
	return p.tierScore(p.topo.tier[lca])
}

func (p *plugin) tierScore(tier int32) float64 {
	minTier, maxTier := p.topo.minTier, p.topo.maxTier
	if minTier == maxTier {
		return 1
	}
	if tier < minTier || tier > maxTier {
		return 0
	}
	return float64(maxTier-tier) / float64(maxTier-minTier)
}

func (p *plugin) normalScores(task *caldera.Task, nodes []*caldera.Node, scores []float64) bool {
	if !p.args.normalPods || p.tierTotal <= 0 {
		return false
	}
	clear(p.scored)
	request := amountOf(&task.Request)
	for i, n := range nodes {
		at := p.topo.atTier[n.Handle]
		sum := 0.0
		for t, w := range p.tierWeights {
			score := 1.0
			if at != nil && at[t] >= 0 {
				h := at[t]
				if !p.scored[h] {
					p.scratch[h], p.scored[h] = p.binpackScore(h, &request), true
				}
				score = p.scratch[h]
			}
			sum += w * score
		}
		scores[i] = sum / p.tierTotal
	}
	return true
}
