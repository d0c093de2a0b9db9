package main

import (
	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
	"github.com/caldera-scheduler/caldera/guest-sdk/go/podrules"
)

// Names under which kube-scheduler's filters report a failed PreFilter.
const (
	prefixAffinityParse = "plugin InterPodAffinity pre-predicates failed parsing pod: "
	prefixSpreadParse   = "plugin PodTopologySpread pre-predicates failed get constraints from pod: obtaining pod's hard topology spread constraints: "
)

// rules is the session's state for the filters that depend on other pods,
// InterPodAffinity and PodTopologySpread: the pods counted on each node,
// and one filter state per rule template, made on first use. Nil when no
// pod of the session has such rules or both filters are off.
type rules struct {
	idx     *podrules.Index
	args    *args
	byKey   caldera.ByKey[*ruleStates]
	byTask  []*ruleStates
	key     []byte
	scratch podrules.KeyScratch
	// ruleClasses numbers the kinds of domain rules tasks have sent.
	ruleClasses caldera.ByKey[int32]
	nextClass   int32
	kinds       []byte
}

type ruleStates struct {
	affinity *podrules.AffinityFilter
	spread   *podrules.SpreadFilter
}

func newRules(v *caldera.View, a *args) *rules {
	if !(a.podAffinity || a.podTopologySpread) || !podrules.HasRules(v) {
		return nil
	}
	return &rules{idx: podrules.NewIndex(v), args: a, byTask: make([]*ruleStates, len(v.Tasks))}
}

// of returns a task's states, made on first use with every pod counted
// now. They catch up with later placements and evictions only in
// catchUp, which runs where Volcano computes the PreFilter state
// (PrePredicate) and where it updates that state (a preemption dry run
// this plugin takes part in): between those points Volcano's filters
// answer from the state as it was, and so does this port.
func (r *rules) of(t *caldera.Task) *ruleStates {
	s := r.byTask[t.Handle]
	if s == nil {
		r.key = podrules.TemplateKey(r.key[:0], &r.scratch, t)
		var ok bool
		if s, ok = r.byKey.Get(r.key); !ok {
			s = &ruleStates{}
			if r.args.podAffinity {
				s.affinity = podrules.NewAffinityFilter(r.idx, t)
			}
			if r.args.podTopologySpread {
				s.spread = podrules.NewSpreadFilter(r.idx, t)
			}
			r.byKey.Put(r.key, s)
		}
		r.byTask[t.Handle] = s
	}
	return s
}

// PredicatesNodeLocalClasses names the tasks whose verdicts stay
// node-local in a session with pod rules: most have no rules of their own
// that read other nodes (Index.NodeLocalClasses). PrePredicate brings
// their states up to date, which is where the scheduler lets kept verdicts
// serve them.
//
// A scheduler that reads domain rules is told, at each PrePredicate, all
// that the filters read of other nodes (PredicateDomainRules): every task
// is then node-local apart from its rules.
func (p *plugin) PredicatesNodeLocalClasses(s *caldera.Session, classes []int32) {
	// Asked only when PredicatesNodeLocalIn said false, so rules is set.
	if p.sendsRules(s) {
		podrules.RuledClasses(&s.View, p.args.podAffinity, p.args.podTopologySpread, classes)
		return
	}
	p.rules.idx.NodeLocalClasses(&s.View, p.args.podAffinity, p.args.podTopologySpread, classes)
}

// sendsRules reports whether the session's scheduler reads domain rules.
func (p *plugin) sendsRules(s *caldera.Session) bool { return s.ReadsDomainRules() }

// PredicateDomainRules restates the task's InterPodAffinity and
// PodTopologySpread states, as PrePredicate brought them up to date, as
// rules on its nodes' topology domains, in the filters' order. Tasks whose
// rules are of the same kinds share a rule class: their failing verdicts
// word the same failures alike.
func (p *plugin) PredicateDomainRules(_ *caldera.Session, t *caldera.Task, out *caldera.DomainRules) bool {
	if p.rules == nil {
		return true
	}
	rs := p.rules.of(t)
	if rs.preFilter() != "" {
		// Unreachable: PrePredicate rejected the task, and RuledClasses
		// gave it no class.
		return false
	}
	r := p.rules
	r.kinds = r.kinds[:0]
	if rs.affinity != nil {
		r.kinds = rs.affinity.AppendRules(out, r.kinds)
	}
	if rs.spread != nil {
		r.kinds = rs.spread.AppendRules(out, r.kinds)
	}
	c, ok := r.ruleClasses.Get(r.kinds)
	if !ok {
		c, r.nextClass = r.nextClass, r.nextClass+1
		r.ruleClasses.Put(r.kinds, c)
	}
	out.Class = c
	return true
}

func (s *ruleStates) catchUp() {
	if s.affinity != nil {
		s.affinity.CatchUp()
	}
	if s.spread != nil {
		s.spread.CatchUp()
	}
}

// passesAll reports whether both filters pass every node as the states
// stand, so that PredicateBatch may skip them: most tasks of a session
// with pod rules have none of their own.
func (s *ruleStates) passesAll() bool {
	return (s.affinity == nil || s.affinity.PassesAll()) && (s.spread == nil || s.spread.PassesAll())
}

// preFilter is the reason a task whose terms or constraints do not parse
// is unschedulable, "" when they parse.
func (s *ruleStates) preFilter() string {
	if s.affinity != nil && s.affinity.Err != "" {
		return prefixAffinityParse + s.affinity.Err
	}
	if s.spread != nil && s.spread.Err != "" {
		return prefixSpreadParse + s.spread.Err
	}
	return ""
}

// filter runs InterPodAffinity, then PodTopologySpread, appending their
// reasons to reasons (joined with ", "); unresolvable says a failure
// preemption cannot fix, which ends the check.
func (s *ruleStates) filter(n *caldera.Node, reasons string) (_ string, unresolvable bool) {
	if reasons, unresolvable = s.filterAffinity(n, reasons); unresolvable {
		return reasons, true
	}
	return s.filterSpread(n, reasons)
}

// filterAffinity is filter's first half: the rules' parse errors and
// InterPodAffinity, which the volume limits and zone checks follow.
func (s *ruleStates) filterAffinity(n *caldera.Node, reasons string) (_ string, unresolvable bool) {
	if r := s.preFilter(); r != "" {
		return join(reasons, r), true
	}
	if s.affinity != nil {
		if r, u := s.affinity.Filter(n); r != "" {
			reasons = join(reasons, r)
			if u {
				return reasons, true
			}
		}
	}
	return reasons, false
}

// filterSpread is filter's second half, PodTopologySpread, which the
// volume binding and device checks follow.
func (s *ruleStates) filterSpread(n *caldera.Node, reasons string) (_ string, unresolvable bool) {
	if s.spread != nil {
		if r, u := s.spread.Filter(n); r != "" {
			reasons = join(reasons, r)
			if u {
				return reasons, true
			}
		}
	}
	return reasons, false
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + ", " + b
}
