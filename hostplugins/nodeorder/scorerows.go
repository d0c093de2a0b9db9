package nodeorder

import (
	"fmt"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// RowMemo switches score rows off, or has each reused row checked, for
// tests.
var RowMemo framework.MemoSwitch

// maxRowTables bounds the row tables of a session: each costs 48 bytes a
// node (2.4 MB at 50,000 nodes).
const maxRowTables = 16

// scoreRow is what one node contributes to a pod's score before
// normalisation, for pods of one request and template: each resource
// strategy's raw score and the raw affinity and taint scores. It is valid
// while the node's Generation is tag-1: every change to the node's tasks,
// which is all that moves the resource scores, gives the node a new
// Generation, and the affinity and taint scores read only the node object,
// fixed for the session.
type scoreRow struct {
	tag                   uint64
	least, most, balanced int64
	affinity, taints      int64
}

// rowKey is what a row depends on of a pod.
type rowKey struct {
	req podRequests
	tpl *template
}

// rowTables keeps score rows by node position, per rowKey. A key gets a
// table once its pods have been scored on as many nodes as the session
// holds: until then each node it meets is likely new to it, and a key
// whose pods never come round again would pay for a table it never reads.
type rowTables struct {
	scored map[rowKey]int
	byKey  map[rowKey][]scoreRow
}

func newRowTables() *rowTables {
	return &rowTables{scored: map[rowKey]int{}, byKey: map[rowKey][]scoreRow{}}
}

// tableFor returns the key's rows, nil when none are kept, counting nodes
// scored without them.
func (t *rowTables) tableFor(k rowKey, nodes, scoring int) []scoreRow {
	if RowMemo.Forgetting() {
		return nil
	}
	if rows := t.byKey[k]; rows != nil {
		return rows
	}
	t.scored[k] += scoring
	if t.scored[k] < nodes || len(t.byKey) == maxRowTables {
		return nil
	}
	rows := make([]scoreRow, nodes)
	t.byKey[k] = rows
	return rows
}

// rowOf returns the node's row for the entry: the table's when the node is
// the session's at its position, else computed into scratch. Pos is the
// node's position in the session's node list and gen its Generation when
// the caller knows them (pos -1 when not), so that a kept row is found
// without reading the node.
func (p *Plugin) rowOf(rows []scoreRow, e *podEntry, n *api.NodeInfo, pos int, gen uint64, scratch *scoreRow) *scoreRow {
	if pos < 0 {
		pos, gen = n.Index, n.Generation
	}
	if rows != nil && pos >= 0 && pos < len(rows) && p.sessionNodes[pos] == n {
		r := &rows[pos]
		if r.tag != gen+1 {
			p.computeRow(r, e, p.stateOf(n))
			r.tag = gen + 1
		} else if c := RowMemo.Checking(); c != nil {
			p.computeRow(scratch, e, p.stateOf(n))
			fresh := *scratch
			fresh.tag = r.tag
			c.Compare(fresh == *r, func() string { return fmt.Sprintf("node %s: kept %+v, computed %+v", n.Name, *r, fresh) })
		}
		return r
	}
	p.computeRow(scratch, e, p.stateOf(n))
	return scratch
}

// computeRow fills the parts of r that the session's weights read.
func (p *Plugin) computeRow(r *scoreRow, e *podEntry, ns *nodeState) {
	*r = scoreRow{}
	if p.w.LeastRequested != 0 || p.w.MostRequested != 0 || p.useBalanced(e) {
		r.least, r.most, r.balanced = e.scores.of(&e.req, ns)
	}
	if p.w.NodeAffinity != 0 && e.tpl.preferred != nil {
		r.affinity = e.tpl.affinityScore(ns, p.nodeCount)
	}
	if p.w.TaintToleration != 0 {
		r.taints = e.tpl.taintScore(ns, p.nodeCount)
	}
}

// useBalanced says whether the balanced strategy scores the entry's pods.
func (p *Plugin) useBalanced(e *podEntry) bool {
	return p.w.BalancedResource != 0 && !e.req.bestEffortForBalance()
}
