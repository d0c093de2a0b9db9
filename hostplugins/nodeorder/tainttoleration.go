package nodeorder

import (
	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
)

// taintScore is kube-scheduler's TaintToleration score before
// normalisation: the node's PreferNoSchedule taints the pod does not tolerate.
func (t *template) taintScore(ns *nodeState, nodeCount int) int64 {
	t.init(nodeCount)
	return lookup(t.taints, ns, t.computeTaints)
}

func (t *template) computeTaints(ns *nodeState) int64 {
	if ns.info.Node == nil {
		return 0
	}
	var n int64
	for i := range ns.info.Node.Spec.Taints {
		taint := &ns.info.Node.Spec.Taints[i]
		if taint.Effect == v1.TaintEffectPreferNoSchedule && !corev1helpers.TolerationsTolerateTaint(t.tolerations, taint) {
			n++
		}
	}
	return n
}
