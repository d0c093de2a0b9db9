package nodeorder

import (
	"fmt"
	"sync"

	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Name is the plugin's name in the scheduler configuration.
const Name = "nodeorder"

// Argument keys, as Volcano names them.
const (
	LeastRequestedWeightKey    = "leastrequested.weight"
	MostRequestedWeightKey     = "mostrequested.weight"
	BalancedResourceWeightKey  = "balancedresource.weight"
	NodeAffinityWeightKey      = "nodeaffinity.weight"
	TaintTolerationWeightKey   = "tainttoleration.weight"
	PodAffinityWeightKey       = "podaffinity.weight"
	PodTopologySpreadWeightKey = "podtopologyspread.weight"
	ImageLocalityWeightKey     = "imagelocality.weight"
	// HardPodAffinityWeightKey is Caldera's own: kube-scheduler's
	// InterPodAffinityArgs.hardPodAffinityWeight.
	HardPodAffinityWeightKey = "podaffinity.hardPodAffinityWeight"
)

// maxNodeScore is kube-scheduler's framework.MaxNodeScore.
const maxNodeScore int64 = 100

// predicatesName is the plugin whose event handlers keep Volcano's node usage
// current during a session.
const predicatesName = "predicates"

// policyNamer is implemented by a plugin that serves a policy under another
// name: a Wasm module configured as "predicates.tinygo" declares that it is
// "predicates" (runtime's adapter), and keeps node usage current as the
// native plugin does.
type policyNamer interface{ PolicyName() string }

// policyName is the policy a plugin implements.
func policyName(p framework.Plugin) string {
	if n, ok := p.(policyNamer); ok {
		return n.PolicyName()
	}
	return p.Name()
}

// Weights are the plugin's arguments.
type Weights struct {
	LeastRequested    int
	MostRequested     int
	BalancedResource  int
	NodeAffinity      int
	TaintToleration   int
	PodAffinity       int
	PodTopologySpread int
	ImageLocality     int
	// HardPodAffinity is what an existing pod's required affinity term
	// that selects the pod adds to its score (0..100).
	HardPodAffinity int
}

// ParseWeights reads the arguments with Volcano's defaults.
func ParseWeights(args framework.Arguments) (Weights, error) {
	w := Weights{LeastRequested: 1, BalancedResource: 1, NodeAffinity: 2, TaintToleration: 3,
		PodAffinity: 2, PodTopologySpread: 2, ImageLocality: 1, HardPodAffinity: 1}
	for _, f := range []struct {
		key string
		dst *int
	}{
		{LeastRequestedWeightKey, &w.LeastRequested},
		{MostRequestedWeightKey, &w.MostRequested},
		{BalancedResourceWeightKey, &w.BalancedResource},
		{NodeAffinityWeightKey, &w.NodeAffinity},
		{TaintTolerationWeightKey, &w.TaintToleration},
		{PodAffinityWeightKey, &w.PodAffinity},
		{PodTopologySpreadWeightKey, &w.PodTopologySpread},
		{ImageLocalityWeightKey, &w.ImageLocality},
		{HardPodAffinityWeightKey, &w.HardPodAffinity},
	} {
		if err := args.Int(f.key, f.dst); err != nil {
			return w, err
		}
	}
	if w.HardPodAffinity < 0 || w.HardPodAffinity > 100 {
		return w, fmt.Errorf("argument %s: %d is not in the range 0-100", HardPodAffinityWeightKey, w.HardPodAffinity)
	}
	return w, nil
}

// Plugin is the nodeorder plugin for one session.
type Plugin struct {
	w Weights

	// live says whether node usage follows the session's placements.
	live       bool
	nodes      []*nodeState
	nodeByInfo map[*api.NodeInfo]*nodeState
	nodeByName map[string]*nodeState
	nodeCount  int
	// placedOn remembers where session placements went, since a task whose
	// placement is undone has already lost its node name.
	placedOn map[api.TaskID]*nodeState

	mu        sync.Mutex
	pods      map[*v1.Pod]*podEntry
	templates map[string]*template
	// scoreTables holds the resource strategies' scores per request shape.
	scoreTables map[podRequests]*resourceScores

	// rules scores inter-pod affinity and topology spread; nil when no pod
	// of the session has such rules nor default spread constraints, or the
	// weights are 0.
	rules *podRules
	// images are the nodes' images, for ImageLocality.
	images       *imageStates
	sessionNodes []*api.NodeInfo
	ssn          *framework.Session

	// requests outlive the session (NewFactory).
	requests *requestMemo
	// rows keep the per-node parts of the scores across BatchNodeOrder
	// calls.
	rows *rowTables
	// The score slices are scratch space reused across BatchNodeOrder
	// calls.
	raw, affinity, taints []int64
}

var (
	_ framework.Plugin          = &Plugin{}
	_ framework.BatchNodeScorer = &Plugin{}
	_ framework.EventHandler    = &Plugin{}
)

// New parses the arguments; a value of the wrong type is an error naming its key.
func New(args framework.Arguments) (framework.Plugin, error) { return NewFactory()(args) }

// Name returns "nodeorder".
func (p *Plugin) Name() string { return Name }

// OnSessionOpen indexes the session's nodes; their usage is summed lazily,
// the first time a node is scored.
func (p *Plugin) OnSessionOpen(ssn *framework.Session) {
	for _, other := range ssn.Plugins() {
		if policyName(other) == predicatesName {
			p.live = true
		}
	}
	p.requests.turn()
	p.nodeCount = len(ssn.NodeList)
	p.nodes = make([]*nodeState, len(ssn.NodeList))
	p.nodeByInfo = make(map[*api.NodeInfo]*nodeState, len(ssn.NodeList))
	p.nodeByName = make(map[string]*nodeState, len(ssn.NodeList))
	// One allocation for all the session's nodes.
	states := make([]nodeState, len(ssn.NodeList))
	for i, n := range ssn.NodeList {
		ns := &states[i]
		ns.index, ns.info, ns.live = i, n, p.live
		p.nodes[i] = ns
		p.nodeByInfo[n] = ns
		p.nodeByName[n.Name] = ns
	}
	p.placedOn = map[api.TaskID]*nodeState{}
	p.pods = map[*v1.Pod]*podEntry{}
	p.templates = map[string]*template{}
	p.scoreTables = map[podRequests]*resourceScores{}
	p.rows = newRowTables()
	p.rules = nil
	if (p.w.PodAffinity != 0 || p.w.PodTopologySpread != 0) && ssn.HasPodRules() ||
		p.w.PodTopologySpread != 0 && ssn.HasSpreadDefaults() {
		p.rules = newPodRules(ssn, p.w)
	}
	p.images = &imageStates{}
	p.sessionNodes = ssn.NodeList
	p.ssn = ssn
}

// OnSessionClose drops the session's state.
func (p *Plugin) OnSessionClose(*framework.Session) {
	p.nodes, p.nodeByInfo, p.nodeByName, p.placedOn, p.pods, p.templates = nil, nil, nil, nil, nil, nil
	p.scoreTables, p.rows = nil, nil
	p.rules, p.images, p.sessionNodes, p.ssn = nil, nil, nil, nil
}

// stateOf returns a node's state, summing its usage on first use. A node that
// is not the session's own gets a fresh state that is not kept.
func (p *Plugin) stateOf(n *api.NodeInfo) *nodeState {
	var ns *nodeState
	if i := n.Index; i >= 0 && i < len(p.nodes) && p.nodes[i].info == n {
		ns = p.nodes[i]
	} else if ns = p.nodeByInfo[n]; ns == nil {
		ns = &nodeState{index: -1, info: n, live: p.live}
	}
	ns.ensureUsage(p)
	return ns
}

// BatchNodeOrder scores the candidate nodes; each strategy is normalised over
// exactly these nodes.
func (p *Plugin) BatchNodeOrder(task *api.TaskInfo, nodes []*api.NodeInfo, totals []float64) error {
	if task.Pod == nil || len(nodes) == 0 {
		return nil
	}
	e, err := p.entryOf(task.Pod)
	if err != nil {
		return err
	}
	// The buffers are the plugin's own and reused for every task of the
	// session: the actions call the scorer from one goroutine.
	raw := grow(&p.raw, len(nodes))
	affinity, taints := grow(&p.affinity, len(nodes)), grow(&p.taints, len(nodes))
	rows := p.rows.tableFor(rowKey{req: e.req, tpl: e.tpl}, p.nodeCount, len(nodes))
	var scratch scoreRow
	var positions []int
	var gens []uint64
	if p.ssn != nil {
		positions, gens = p.ssn.PositionsOf(nodes), p.ssn.NodeGenerations()
	}
	wLeast, wMost, wBalanced := int64(p.w.LeastRequested), int64(p.w.MostRequested), int64(0)
	if p.useBalanced(e) {
		wBalanced = int64(p.w.BalancedResource)
	}
	// Each strategy's weighted score is an integer, so the float sum is
	// exact whatever the order, as in Volcano; strategies are still added
	// one by one, in Volcano's order, so that totals already holding
	// fractions round as before. The resource strategies need no
	// normalisation and are added as the rows are read; affinity and
	// taints are normalised by their highest over these nodes after.
	var highestAffinity, highestTaints int64
	for i, n := range nodes {
		pos, gen := -1, uint64(0)
		if positions != nil {
			pos = positions[i]
			gen = gens[pos]
		}
		r := p.rowOf(rows, e, n, pos, gen, &scratch)
		if wLeast != 0 {
			totals[i] += float64(r.least * wLeast)
		}
		if wMost != 0 {
			totals[i] += float64(r.most * wMost)
		}
		if wBalanced != 0 {
			totals[i] += float64(r.balanced * wBalanced)
		}
		affinity[i], taints[i] = r.affinity, r.taints
		highestAffinity, highestTaints = max(highestAffinity, r.affinity), max(highestTaints, r.taints)
	}
	useAffinity := p.w.NodeAffinity != 0 && e.tpl.preferred != nil
	if useTaints := p.w.TaintToleration != 0; useAffinity || useTaints {
		wAffinity, wTaints := int64(p.w.NodeAffinity), int64(p.w.TaintToleration)
		for i := range totals {
			if useAffinity {
				totals[i] += float64(normalized(affinity[i], highestAffinity, false) * wAffinity)
			}
			if useTaints {
				totals[i] += float64(normalized(taints[i], highestTaints, true) * wTaints)
			}
		}
	}
	add := func(raw []int64, weight int) {
		for i := range totals {
			totals[i] += float64(raw[i] * int64(weight))
		}
	}
	if w := p.w.ImageLocality; w != 0 {
		p.images.build(p.sessionNodes)
		if !p.images.none {
			for i, n := range nodes {
				raw[i] = p.images.score(task.Pod, p.stateOf(n).index, p.nodeCount)
			}
			add(raw, w)
		}
	}
	if p.rules != nil {
		return p.rules.add(task, nodes, &p.w, raw, add)
	}
	return nil
}

// normalized is kube-scheduler's DefaultNormalizeScore for one score of a
// list whose highest is highest: scaled to 0..100 by the highest,
// optionally reversed; when the highest is 0 a score stays, or becomes 100
// when reversed.
func normalized(s, highest int64, reverse bool) int64 {
	if highest == 0 {
		if reverse {
			return maxNodeScore
		}
		return s
	}
	s = maxNodeScore * s / highest
	if reverse {
		s = maxNodeScore - s
	}
	return s
}

// OnAllocate adds a placed (or unevicted) task's requests to its node.
// Placements are remembered even when usage does not follow them, so that a
// node first scored later does not count them as present at session open.
func (p *Plugin) OnAllocate(task *api.TaskInfo) {
	if p.live && p.rules != nil {
		p.rules.idx.Add(task)
	}
	if task.Status == api.Allocated || task.Status == api.Pipelined {
		if ns := p.nodeByName[task.NodeName]; ns != nil {
			p.placedOn[task.UID] = ns
		}
	}
	if !p.live {
		return
	}
	ns := p.nodeByName[task.NodeName]
	if ns == nil {
		return
	}
	ns.addPod(task.Pod, p, 1)
}

// OnDeallocate removes an evicted or unplaced task's requests from its node.
func (p *Plugin) OnDeallocate(task *api.TaskInfo) {
	if p.live && p.rules != nil {
		p.rules.idx.Remove(task)
	}
	if !p.live {
		return
	}
	ns := p.nodeByName[task.NodeName]
	if ns == nil {
		ns = p.placedOn[task.UID]
	}
	if ns == nil {
		return
	}
	ns.addPod(task.Pod, p, -1)
}

// grow returns (*buf)[:n], reallocating when it is too small.
func grow(buf *[]int64, n int) []int64 {
	if cap(*buf) < n {
		*buf = make([]int64, n)
	}
	*buf = (*buf)[:n]
	return *buf
}
