package nodeorder

// resourceScores remembers, for one request shape, the three resource
// strategies' raw scores per node, valid while the node's usage is
// unchanged. The pods of a gang share a request, and between two of its
// placements only one node changes, so most nodes are scored once per
// session instead of once per task.
type resourceScores struct {
	slots []resourceSlot
}

type resourceSlot struct {
	// tag is the node's usage version plus one; 0 means empty.
	tag                   uint64
	least, most, balanced int64
}

func newResourceScores(nodeCount int) *resourceScores {
	return &resourceScores{slots: make([]resourceSlot, nodeCount)}
}

// of returns the raw least-requested, most-requested and balanced scores of
// r on the node. Nodes outside the session are computed every time.
func (s *resourceScores) of(r *podRequests, ns *nodeState) (least, most, balanced int64) {
	if ns.index < 0 || ns.index >= len(s.slots) {
		return leastRequestedScore(r, ns), mostRequestedScore(r, ns), balancedScore(r, ns)
	}
	slot := &s.slots[ns.index]
	if slot.tag != ns.version+1 {
		*slot = resourceSlot{
			tag:      ns.version + 1,
			least:    leastRequestedScore(r, ns),
			most:     mostRequestedScore(r, ns),
			balanced: balancedScore(r, ns),
		}
	}
	return slot.least, slot.most, slot.balanced
}
