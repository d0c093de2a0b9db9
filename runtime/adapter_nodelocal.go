package runtime

import (
	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// kept is a node-local answer about one node, a NodeLocal module's
// verdict or a score of a session that promised node-local scores: given
// for a task of which shape, at which of the node's generations.
type kept[T any] struct {
	shape      uint64
	generation uint64
	answer     T
	valid      bool
}

// holds reports whether the answer serves a task of this shape on the node
// at this generation.
func (k *kept[T]) holds(shape, generation uint64) bool {
	return k.valid && k.shape == shape && k.generation == generation
}

// sized returns ks with one slot per node of the session, reusing it when
// it already has as many.
func sized[T any](ks []kept[T], nodes int) []kept[T] {
	if len(ks) != nodes {
		return make([]kept[T], nodes)
	}
	return ks
}

// drop invalidates the answers kept for these nodes.
func drop[T any](ks []kept[T], nodes []int32) {
	for _, h := range nodes {
		if h >= 0 && int(h) < len(ks) {
			ks[h].valid = false
		}
	}
}

// shapeOf returns task t's shape; a task without one is never kept or
// recalled.
func (a *adapter) shapeOf(t int32) (uint64, bool) {
	if t < 0 || int(t) >= len(a.handles.taskShape) {
		return 0, false
	}
	return a.handles.taskShape[t], true
}

// ruleShapeOf returns task t's shape without its inter-pod rules.
func (a *adapter) ruleShapeOf(t int32) (uint64, bool) {
	if t < 0 || int(t) >= len(a.handles.taskRuleShape) {
		return 0, false
	}
	return a.handles.taskRuleShape[t], true
}

// nodeLocal reports whether the module declared its verdicts NodeLocal
// (abi.Descriptor) and did not withdraw that for this session: a verdict
// then holds for every task of the same shape until the node changes,
// across tasks and events.
func (a *adapter) nodeLocal() bool { return a.mod.descriptor.NodeLocal && !a.localWithdrawn }

// servedLocally decides, for task t's new task-epoch, whether kept
// verdicts serve it and which: the module's node-local ones, or those of
// the node-local class the module gave t in this session, while t's
// pre_predicate was asked in this epoch (or the module has none).
func (a *adapter) servedLocally(c *predicateCache, t int32) {
	shape, known := a.shapeOf(t)
	switch {
	case !known:
	case a.nodeLocal():
		c.shape, c.local, c.store = shape, true, &a.kept
	case a.classes != nil && a.classes[t] >= 0 && a.preAskedNow(t):
		r := a.lastPre.rules
		if r != nil && r.unusable {
			return
		}
		if r != nil {
			// The rules carry the task's inter-pod rules: the rest of its
			// shape is what it shares with other tasks.
			if shape, known = a.ruleShapeOf(t); !known {
				return
			}
		}
		c.shape, c.local, c.store = classShape(shape, a.classes[t]), true, &a.keptClass
		if r != nil {
			c.rules, c.ruleShape = r, classShape(c.shape, r.ruleClass)
		}
	}
}

// preAskedNow reports whether task t's pre_predicate was asked since the
// last event, or the module serves none. The predicates port brings its
// rule states up to date in pre_predicate: a verdict given in a later
// epoch may answer from a state older than the node it is kept with.
func (a *adapter) preAskedNow(t int32) bool {
	if !a.mod.Implements(abi.HookPrePredicate) {
		return true
	}
	return a.lastPre.task == t && a.lastPre.epoch == a.epoch
}

// classShape tells apart the tasks of one shape in different node-local
// classes.
func classShape(shape uint64, class int32) uint64 {
	const prime = 1099511628211 // FNV-1a's, as fnv64a digests shapes
	for i := range 4 {
		shape ^= uint64(byte(uint32(class) >> (8 * i)))
		shape *= prime
	}
	return shape
}

// recall fills the task-epoch cache with the verdict kept for node h, if
// it was given for a task of the cache's shape and the node has not
// changed since. Callers hold the cache's lock.
func (a *adapter) recall(c *predicateCache, h int32) bool {
	if int(h) >= len(a.ssn.NodeList) {
		return false
	}
	v, ok := c.store.find(h, c.keyAt(h), a.ssn.NodeList[h].Generation)
	if ok {
		c.verdicts[h], c.known[h] = v, true
	}
	return ok
}

// keep remembers the verdicts of a predicate_batch call. Callers hold the
// cache's lock.
func (a *adapter) keep(c *predicateCache) {
	c.store.size(len(a.ssn.NodeList))
	for i, h := range c.window {
		if int(h) < len(a.ssn.NodeList) {
			c.store.put(h, c.keyAt(h), a.ssn.NodeList[h].Generation, c.got[i])
		}
	}
}

// forget drops the answers kept for the nodes an event changes in the
// guest's view. Every placement also changes the node's Generation, which
// is enough for the promises as docs/abi.md words them; a bind does not,
// and a module that read its node's pods' statuses against its promise
// would otherwise be served an answer from before the bind. Scores are
// kept and read on the session's goroutine, as events are; verdicts take
// the predicate cache's lock, which guards them.
func (a *adapter) forget(nodes ...int32) {
	drop(a.keptScores, nodes)
	// Verdicts kept in earlier sessions are dropped in a session that
	// withdrew the promise too: a later one may make it again.
	if !a.mod.descriptor.NodeLocal {
		return
	}
	a.verdicts.mu.Lock()
	defer a.verdicts.mu.Unlock()
	a.kept.drop(nodes)
	a.keptClass.drop(nodes)
}

// nodeLocalClass is a task's class for the session's search memo: tasks of
// one shape, asked of one module.
type nodeLocalClass struct {
	a     *adapter
	shape uint64
}

// PredicateClass gives the search the promise a NodeLocal module made
// (framework.PredicateClasser): a verdict depends on the task's shape and
// the node's state alone, the promise under which the adapter keeps
// verdicts across sessions. A module that withdrew it this session, and
// tasks with claims to check, get none; so do tasks the module classed
// only for this session, whose classes hold only while their
// pre_predicate answer does.
func (a *adapter) PredicateClass(task *api.TaskInfo) (any, bool) {
	if !a.nodeLocal() || a.claims != nil && a.claims.HasChecks(task) {
		return nil, false
	}
	t, ok := a.handles.tasks[task.UID]
	if !ok {
		return nil, false
	}
	shape, known := a.shapeOf(t)
	if !known {
		return nil, false
	}
	return nodeLocalClass{a: a, shape: shape}, true
}
