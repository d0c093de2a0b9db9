package runtime

import (
	"fmt"

	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// keptVerdict is a NodeLocal module's last verdict about one node: for a
// task of which shape, and at which of the node's generations.
type keptVerdict struct {
	shape      uint64
	generation uint64
	verdict    abi.Verdict
	valid      bool
}

// keptScore is a node_order_batch score of a session whose module promised
// node-local scores (abi.OpenResult): for a task of which shape, and at
// which of the node's generations.
type keptScore struct {
	shape      uint64
	generation uint64
	score      float64
	valid      bool
}

// nodeLocal reports whether the module declared its verdicts NodeLocal
// (abi.Descriptor): a verdict then holds for every task of the same shape
// until the node changes, across tasks and events.
func (a *adapter) nodeLocal() bool { return a.mod.descriptor.NodeLocal }

// recall fills the task-epoch cache with the verdict kept for node h, if
// it was given for a task of the cache's shape and the node has not
// changed since. Callers hold the cache's lock.
func (a *adapter) recall(c *predicateCache, h int32) bool {
	if int(h) >= len(a.kept) { // kept is empty or sized to the node list
		return false
	}
	k := &a.kept[h]
	if !k.valid || k.shape != c.shape || k.generation != a.ssn.NodeList[h].Generation {
		return false
	}
	c.verdicts[h], c.known[h] = k.verdict, true
	return true
}

// keep remembers the verdicts of a predicate_batch call. Callers hold the
// cache's lock.
func (a *adapter) keep(c *predicateCache) {
	if len(a.kept) != len(a.ssn.NodeList) {
		a.kept = make([]keptVerdict, len(a.ssn.NodeList))
	}
	for i, h := range c.window {
		if int(h) < len(a.kept) {
			a.kept[h] = keptVerdict{shape: c.shape, generation: a.ssn.NodeList[h].Generation, verdict: c.got[i], valid: true}
		}
	}
}

// forget drops the kept verdicts of the nodes an event changes in the
// guest's view. Every placement also changes the node's Generation, which
// is enough for the promise as docs/abi.md words it; a bind does not, and a
// module that read its node's pods' statuses against its promise would
// otherwise be served a verdict from before the bind.
func (a *adapter) forget(nodes ...int32) {
	for _, h := range nodes {
		if h >= 0 && int(h) < len(a.keptScores) {
			a.keptScores[h].valid = false
		}
	}
	if !a.nodeLocal() {
		return
	}
	a.verdicts.mu.Lock()
	defer a.verdicts.mu.Unlock()
	for _, h := range nodes {
		if h >= 0 && int(h) < len(a.kept) {
			a.kept[h].valid = false
		}
	}
}

// localNodeOrder is BatchNodeOrder for a session whose module promised
// node-local scores: kept scores are added as they are, and the module is
// asked only about the other nodes, whose scores are then kept.
func (a *adapter) localNodeOrder(t int32, nodes []*api.NodeInfo, totals []float64) error {
	if len(a.keptScores) != len(a.ssn.NodeList) {
		a.keptScores = make([]keptScore, len(a.ssn.NodeList))
	}
	var shape uint64
	if int(t) < len(a.handles.taskShape) {
		shape = a.handles.taskShape[t]
	}
	a.nodes, a.positions = a.nodes[:0], a.positions[:0]
	for i, n := range nodes {
		h, ok := a.nodeHandle(n)
		if !ok {
			return fmt.Errorf("plugin %s: node %s is not in the session view", a.name, n.Name)
		}
		if k := &a.keptScores[h]; k.valid && k.shape == shape && k.generation == n.Generation {
			totals[i] += k.score
			continue
		}
		a.nodes = append(a.nodes, h)
		a.positions = append(a.positions, i)
	}
	if len(a.nodes) == 0 {
		return nil
	}
	if err := a.scoreNodes(t, len(a.nodes)); err != nil {
		return err
	}
	for j, s := range a.scores {
		i, h := a.positions[j], a.nodes[j]
		totals[i] += s
		a.keptScores[h] = keptScore{shape: shape, generation: nodes[i].Generation, score: s, valid: true}
	}
	return nil
}
