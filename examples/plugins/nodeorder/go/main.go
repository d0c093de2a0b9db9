// Command nodeorder is the Wasm port of Caldera's native nodeorder plugin
// (hostplugins/nodeorder, Volcano's nodeorder): it scores nodes for a task
// with kube-scheduler's scoring rules and integer arithmetic, each strategy
// in 0..100, normalised over the candidates where kube-scheduler normalises
// it, times its weight:
//
//	leastrequested.weight    1  cpu and memory left free, weighing 50 each
//	mostrequested.weight     0  cpu and memory in use
//	balancedresource.weight  1  balance of cpu, memory and nvidia.com/gpu
//	nodeaffinity.weight      2  preferred node affinity, best candidate 100
//	tainttoleration.weight   3  fewest untolerated PreferNoSchedule taints 100
//	imagelocality.weight     1  the task's images already on the node
//	podaffinity.weight       2  preferred inter-pod affinity, existing pods'
//	                            terms too (podaffinity.hardPodAffinityWeight 1)
//	podtopologyspread.weight 2  ScheduleAnyway spread constraints
//
// (podrules.go).
//
// Node usage is what Volcano's kube-scheduler NodeInfo holds: the requests
// of every pod on the node at session open (the view's KubeRequested), plus
// tasks placed in the session, minus tasks evicted in it; when no plugin
// named predicates is configured it stays as it was at session open
// (usage.go).
package main

import (
	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

func main() {}

func init() { caldera.Register(&plugin{}) }

// maxNodeScore is kube-scheduler's framework.MaxNodeScore.
const maxNodeScore int64 = 100

// plugin is the nodeorder policy for one session.
type plugin struct {
	w weights

	// live says whether node usage follows the session's placements.
	live  bool
	nodes []nodeState
	// entries holds each task's requests, template and score table, by
	// task handle.
	entries []entry

	images images
	// rules is nil in a session without inter-pod affinity or spread rules.
	rules *rules

	// Scratch space reused by every NodeOrderBatch call.
	raw, least, most, balanced []int64
}

var (
	_ caldera.SessionOpener    = (*plugin)(nil)
	_ caldera.NodeOrderBatcher = (*plugin)(nil)
	_ caldera.EventObserver    = (*plugin)(nil)
	_ caldera.ArgumentDeclarer = (*plugin)(nil)
	_ caldera.NodeLocalScorer  = (*plugin)(nil)
	_ caldera.RulelessScorer   = (*plugin)(nil)
)

func (*plugin) Name() string { return "nodeorder" }

// predicatesName is the plugin whose event handlers keep Volcano's node
// usage current during a session.
const predicatesName = "predicates"

// OnSessionOpen reads the weights and indexes the session's nodes and the
// templates and requests of its tasks.
func (p *plugin) OnSessionOpen(s *caldera.Session) error {
	w, err := parseWeights(s.Arguments)
	if err != nil {
		return err
	}
	p.w = w
	p.live = false
	for _, name := range s.View.Plugins {
		if name == predicatesName {
			p.live = true
		}
	}
	v := &s.View
	// The arrays of the previous session are reused, zeroed: a TinyGo
	// module collects when its heap fills, so every byte allocated per
	// session brings the next walk over the whole view closer.
	p.nodes = reuse(p.nodes, len(v.Nodes))
	for i := range v.Nodes {
		p.nodes[i].init(&v.Nodes[i])
	}
	p.entries = reuse(p.entries, len(v.Tasks))
	p.images = images{}
	p.rules = newRules(v, &p.w)
	var templates caldera.ByKey[*template]
	tables := map[caldera.KubeRequest]*resourceScores{}
	// The tasks of a job follow each other in the view and mostly share
	// their request: the table map is consulted only when the request
	// differs from the one before, as ByKey does for templates.
	var key []byte
	var scores *resourceScores
	var prevReq caldera.KubeRequest
	for i := range v.Tasks {
		t := &v.Tasks[i]
		key = templateKey(key[:0], t)
		tpl, ok := templates.Get(key)
		if !ok {
			tpl = newTemplate(t, len(v.Nodes))
			templates.Put(key, tpl)
		}
		if scores == nil || t.KubeRequest != prevReq {
			scores = tables[t.KubeRequest]
			if scores == nil {
				scores = newResourceScores(len(v.Nodes))
				tables[t.KubeRequest] = scores
			}
			prevReq = t.KubeRequest
		}
		p.entries[i] = entry{tpl: tpl, scores: scores, placedOn: -1}
		// A session reopened after a failure sees its own placements in the
		// view.
		if (t.Status == caldera.Allocated || t.Status == caldera.Pipelined) && t.Node >= 0 {
			p.entries[i].placedOn = t.Node
		}
	}
	return nil
}

// ScoresReadNoRules: with no rules state, no score reads a task's
// inter-pod terms or spread constraints (they score nothing in such a
// session), so gangs that differ only there share kept scores.
func (p *plugin) ScoresReadNoRules(*caldera.Session) bool { return p.rules == nil }

// ScoresNodeLocal: never in a session with pod rules. The resource
// strategies read the node and the task's request only; the two normalised ones depend on the other candidates
// unless a node's score does not depend on them. Taint toleration counts
// a node's untolerated PreferNoSchedule taints and scales by the highest
// count among the candidates, reversed: while no node has more than one,
// a count of 0 scores 100 whatever the highest, and a count of 1 is the
// highest and scores 0. Node affinity is skipped when no task has a
// preferred node affinity.
func (p *plugin) ScoresNodeLocal(s *caldera.Session) bool {
	if p.rules != nil {
		return false // normalised over the candidates, and reads other pods
	}
	v := &s.View
	if p.w.taintToleration != 0 {
		for i := range v.Nodes {
			soft := 0
			for j := range v.Nodes[i].Taints {
				if v.Nodes[i].Taints[j].Effect == "PreferNoSchedule" {
					soft++
				}
			}
			if soft > 1 {
				return false
			}
		}
	}
	if p.w.nodeAffinity != 0 {
		for i := range p.entries {
			if p.entries[i].tpl.preferred != nil { // err is set only with terms
				return false
			}
		}
	}
	return true
}

// NodeOrderBatch scores the candidate nodes; each strategy is normalised
// over exactly these nodes. It allocates nothing once its scratch space has
// grown to the number of candidates.
func (p *plugin) NodeOrderBatch(s *caldera.Session, task *caldera.Task, nodes []*caldera.Node, scores []float64) error {
	if len(nodes) == 0 {
		return nil
	}
	e := &p.entries[task.Handle]
	if e.tpl.err != nil {
		return e.tpl.err
	}
	req := &task.KubeRequest
	raw := grow(&p.raw, len(nodes))
	least, most, balanced := grow(&p.least, len(nodes)), grow(&p.most, len(nodes)), grow(&p.balanced, len(nodes))
	useBalanced := p.w.balancedResource != 0 && !bestEffortForBalance(req)
	if p.w.leastRequested != 0 || p.w.mostRequested != 0 || useBalanced {
		for i, n := range nodes {
			least[i], most[i], balanced[i] = e.scores.of(req, &p.nodes[n.Handle], n.Handle, p.live)
		}
	}
	if w := p.w.leastRequested; w != 0 {
		addWeighted(scores, least, w)
	}
	if w := p.w.mostRequested; w != 0 {
		addWeighted(scores, most, w)
	}
	if w := p.w.balancedResource; useBalanced {
		addWeighted(scores, balanced, w)
	}
	if w := p.w.nodeAffinity; w != 0 && e.tpl.preferred != nil {
		for i, n := range nodes {
			raw[i] = e.tpl.affinityScore(n)
		}
		normalize(raw, false)
		addWeighted(scores, raw, w)
	}
	if w := p.w.taintToleration; w != 0 {
		for i, n := range nodes {
			raw[i] = e.tpl.taintScore(n)
		}
		normalize(raw, true)
		addWeighted(scores, raw, w)
	}
	if w := p.w.imageLocality; w != 0 {
		p.images.build(s.View.Nodes)
		if !p.images.none {
			for i, n := range nodes {
				raw[i] = p.images.score(task, n.Handle)
			}
			addWeighted(scores, raw, w)
		}
	}
	if p.rules != nil {
		return p.rules.add(task, nodes, raw, scores)
	}
	return nil
}

// addWeighted adds one strategy's weighted scores. Each is an integer;
// strategies are added one by one, as the native plugin adds them.
func addWeighted(scores []float64, raw []int64, weight int64) {
	for i := range scores {
		scores[i] += float64(raw[i] * weight)
	}
}

// normalize is kube-scheduler's DefaultNormalizeScore: scale to 0..100 by the
// highest score, optionally reversed; all zeros stay 0, or become 100 when
// reversed.
func normalize(scores []int64, reverse bool) {
	var highest int64
	for _, s := range scores {
		highest = max(highest, s)
	}
	for i, s := range scores {
		if highest == 0 {
			if reverse {
				scores[i] = maxNodeScore
			}
			continue
		}
		s = maxNodeScore * s / highest
		if reverse {
			s = maxNodeScore - s
		}
		scores[i] = s
	}
}

// reuse returns s with length n and every element zero, in its own array
// when that is large enough (cleared to its end, so that a smaller session
// does not keep the previous one's objects alive).
func reuse[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	clear(s[:cap(s)])
	return s[:n]
}

// grow returns (*buf)[:n], reallocating when it is too small.
func grow(buf *[]int64, n int) []int64 {
	if cap(*buf) < n {
		*buf = make([]int64, n)
	}
	*buf = (*buf)[:n]
	return *buf
}
