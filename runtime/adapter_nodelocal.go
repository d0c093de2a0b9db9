package runtime

import "github.com/caldera-scheduler/caldera/abi"

// keptVerdict is a NodeLocal module's last verdict about one node: for a
// task of which shape, and at which of the node's generations.
type keptVerdict struct {
	shape      uint64
	generation uint64
	verdict    abi.Verdict
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
