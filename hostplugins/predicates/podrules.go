package predicates

import (
	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
	"github.com/caldera-scheduler/caldera/scheduler/podrules"
)

// Names under which kube-scheduler's filters report a failed PreFilter.
const (
	interPodAffinityName  = "InterPodAffinity"
	podTopologySpreadName = "PodTopologySpread"
)

// podRules is the session's state for the filters that depend on other
// pods: the index of pods on nodes and one filter state per rule template.
type podRules struct {
	idx    *podrules.Index
	states *podrules.Templates[*ruleStates]
}

// ruleStates are one template's filter states; nil when disabled.
type ruleStates struct {
	affinity *podrules.AffinityFilter
	spread   *podrules.SpreadFilter
}

func newPodRules(ssn *framework.Session, a Args) *podRules {
	idx := podrules.NewIndex(ssn.NodeList, ssn.NamespaceLabels)
	return &podRules{idx: idx, states: podrules.NewTemplates(func(pod *v1.Pod) *ruleStates {
		s := &ruleStates{}
		if a.PodAffinity {
			s.affinity = podrules.NewAffinityFilter(idx, pod)
		}
		if a.PodTopologySpread {
			s.spread = podrules.NewSpreadFilter(idx, pod)
		}
		return s
	})}
}

// catchUp brings the states up to date with the session's placements and
// evictions. It runs at PrePredicate, where Volcano computes the PreFilter
// state, and during a preemption dry run whose victims the plugin follows.
func (s *ruleStates) catchUp() {
	if s.affinity != nil {
		s.affinity.CatchUp()
	}
	if s.spread != nil {
		s.spread.CatchUp()
	}
}

// preFilter reports a pod whose affinity terms or spread constraints do
// not parse, with kube-scheduler's words.
func (s *ruleStates) preFilter() *framework.Status {
	if s.affinity != nil && s.affinity.Err != nil {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable,
			"plugin "+interPodAffinityName+" pre-predicates failed parsing pod: "+s.affinity.Err.Error())
	}
	if s.spread != nil && s.spread.Err != nil {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable,
			"plugin "+podTopologySpreadName+" pre-predicates failed get constraints from pod: obtaining pod's hard topology spread constraints: "+s.spread.Err.Error())
	}
	return nil
}

// filter runs InterPodAffinity, then PodTopologySpread, adding their
// reasons to reasons; unresolvable says a failure preemption cannot fix.
func (s *ruleStates) filter(nd *podrules.Node, reasons []string) (_ []string, unresolvable bool) {
	if reasons, unresolvable = s.filterAffinity(nd, reasons); unresolvable {
		return reasons, true
	}
	return s.filterSpread(nd, reasons)
}

// filterAffinity is the inter-pod affinity part of filter (with the
// pre-filter verdict); filterSpread the topology spread part. Volcano runs
// the volume filters between them.
func (s *ruleStates) filterAffinity(nd *podrules.Node, reasons []string) (_ []string, unresolvable bool) {
	if st := s.preFilter(); st != nil {
		return append(reasons, st.Reasons...), true
	}
	if s.affinity != nil {
		if r, u := s.affinity.Filter(nd); r != "" {
			reasons = append(reasons, r)
			if u {
				return reasons, true
			}
		}
	}
	return reasons, false
}

func (s *ruleStates) filterSpread(nd *podrules.Node, reasons []string) (_ []string, unresolvable bool) {
	if s.spread != nil {
		if r, u := s.spread.Filter(nd); r != "" {
			reasons = append(reasons, r)
			if u {
				return reasons, true
			}
		}
	}
	return reasons, false
}

func (r *podRules) onAllocate(task *api.TaskInfo)   { r.idx.Add(task) }
func (r *podRules) onDeallocate(task *api.TaskInfo) { r.idx.Remove(task) }
