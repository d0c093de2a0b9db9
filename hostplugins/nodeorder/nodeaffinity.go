package nodeorder

// affinityScore is kube-scheduler's NodeAffinity score before normalisation:
// the sum of the weights of the preferred terms the node matches.
func (t *template) affinityScore(ns *nodeState, nodeCount int) int64 {
	t.init(nodeCount)
	return lookup(t.affinity, ns, t.computeAffinity)
}

func (t *template) computeAffinity(ns *nodeState) int64 {
	if t.preferred == nil || ns.info.Node == nil {
		return 0
	}
	return t.preferred.Score(ns.info.Node)
}
