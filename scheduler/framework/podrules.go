package framework

import (
	v1 "k8s.io/api/core/v1"
)

// HasPodRules reports whether a pod has rules that depend on other pods:
// inter-pod affinity or anti-affinity terms, or topology spread
// constraints.
func HasPodRules(p *v1.Pod) bool {
	if p == nil {
		return false
	}
	if len(p.Spec.TopologySpreadConstraints) > 0 {
		return true
	}
	a := p.Spec.Affinity
	return a != nil && (a.PodAffinity != nil || a.PodAntiAffinity != nil)
}

// HasPodRules reports whether any pod of the session, pending or on a
// node, has rules that depend on other pods. Without any, such rules pass
// every node and score nothing, and plugins need not index the session's
// pods. It is computed once per session.
func (ssn *Session) HasPodRules() bool {
	ssn.podRulesOnce.Do(func() {
		for _, n := range ssn.NodeList {
			for _, t := range n.Tasks {
				if HasPodRules(t.Pod) {
					ssn.podRules = true
					return
				}
			}
		}
		for _, j := range ssn.JobList {
			for _, t := range j.Tasks {
				if HasPodRules(t.Pod) {
					ssn.podRules = true
					return
				}
			}
		}
	})
	return ssn.podRules
}
