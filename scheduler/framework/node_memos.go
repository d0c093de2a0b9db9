package framework

import "github.com/caldera-scheduler/caldera/scheduler/api"

// PredicateClasser is a Predicater that can promise, for a task, that its
// answer on a node depends on nothing but the task's class and the node's
// state: two tasks of one class get the same answer from a node whose
// Generation is the same, for the rest of the session. A search may then
// reuse an answer instead of asking again.
type PredicateClasser interface {
	// PredicateClass returns the task's class, a comparable value, and
	// false when the promise does not hold for this task (its answer may
	// depend on other nodes, other pods' rules, volumes or claims, or
	// anything else that changes without the node changing).
	PredicateClass(task *api.TaskInfo) (class any, ok bool)
}

// maxClassedPredicates bounds the predicate hooks whose classes make up a
// PredicateClass; a session with more gets no class.
const maxClassedPredicates = 4

// PredicateClass is a task's class for the session's whole predicate
// chain: one class from each predicate hook, in order.
type PredicateClass struct {
	n  int
	of [maxClassedPredicates]any
}

// PredicateClass returns the task's class for PredicateFn: tasks of one
// class get the same answer from one state of a node (its Generation).
// False unless every predicate hook is a PredicateClasser that promises
// it for this task.
func (ssn *Session) PredicateClass(task *api.TaskInfo) (PredicateClass, bool) {
	var c PredicateClass
	for _, tier := range ssn.hooks.predicate {
		for _, e := range tier {
			pc, ok := e.fn.(PredicateClasser)
			if !ok || c.n == maxClassedPredicates {
				return PredicateClass{}, false
			}
			class, ok := pc.PredicateClass(task)
			if !ok {
				return PredicateClass{}, false
			}
			c.of[c.n] = class
			c.n++
		}
	}
	return c, true
}

// NodeGenerations returns the Generation of each node of NodeList, by
// position, kept current as the session changes them; nil when the nodes
// already fed another open session's (api.TrackGenerations), and then
// nothing may be remembered by position. Callers only read it.
func (ssn *Session) NodeGenerations() []uint64 { return ssn.generations }

// SetPositions says that nodes, until the next call, are at these
// positions of NodeList (nil nodes: none), so that plugins scoring them
// and keeping tables by position (PositionsOf) need not read each node to
// find its place.
func (ssn *Session) SetPositions(nodes []*api.NodeInfo, positions []int) {
	ssn.positioned, ssn.positions = nodes, positions
}

// PositionsOf returns each node's position in NodeList when nodes is the
// very list last given to SetPositions; nil otherwise.
func (ssn *Session) PositionsOf(nodes []*api.NodeInfo) []int {
	if len(nodes) == 0 || len(nodes) != len(ssn.positioned) || &nodes[0] != &ssn.positioned[0] {
		return nil
	}
	return ssn.positions
}
