package placement

import (
	"fmt"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// maxRememberedClasses bounds the classes Verdicts keeps answers for: each
// costs 16 bytes a node (800 KB at 50,000 nodes).
const maxRememberedClasses = 32

// Verdicts remembers a search's predicate answers per class of task and
// node, for the searches of one action over the session's node list. An
// answer stays valid while the node's Generation is the one it was given
// for; the class's promise (framework.Session.PredicateClass) says the
// answer depends on nothing else.
//
// A class gets a table only once its searches have walked as many nodes as
// the list holds: before that every node it meets is new to it, and a
// class that never comes round again (one small gang) would pay for a table
// it never reads.
type Verdicts struct {
	ssn     *framework.Session
	walked  map[any]int
	byClass map[any]*classVerdicts
	// feasible and positions are the buffers of the action's finders.
	feasible  []*api.NodeInfo
	positions []int
}

// classVerdicts holds one class's answers by node position: tag is the
// node's Generation plus one when the answer was given, 0 for none.
type classVerdicts struct {
	tag []uint64
	st  []*framework.Status
}

// NewVerdicts returns an empty memo for searches over the session's nodes.
func NewVerdicts(ssn *framework.Session) *Verdicts {
	return &Verdicts{ssn: ssn, walked: map[any]int{}, byClass: map[any]*classVerdicts{}}
}

// isSessionList reports whether nodes is the session's node list itself,
// so that positions in it are positions in the generations, and the
// session keeps those.
func (v *Verdicts) isSessionList(nodes []*api.NodeInfo) bool {
	list := v.ssn.NodeList
	return len(nodes) > 0 && len(list) == len(nodes) && &nodes[0] == &list[0] && v.ssn.NodeGenerations() != nil
}

// tableFor returns the class's table for a search over the session's node
// list, or nil when answers are not kept for it.
func (v *Verdicts) tableFor(class any) *classVerdicts {
	if class == nil || VerdictMemo.Forgetting() {
		return nil
	}
	if t := v.byClass[class]; t != nil {
		return t
	}
	n := len(v.ssn.NodeList)
	if v.walked[class] < n || len(v.byClass) == maxRememberedClasses {
		return nil
	}
	t := &classVerdicts{tag: make([]uint64, n), st: make([]*framework.Status, n)}
	v.byClass[class] = t
	return t
}

// walk counts nodes a class's search visited without a table.
func (v *Verdicts) walk(class any, visited int) {
	if class != nil && v.byClass[class] == nil {
		v.walked[class] += visited
	}
}

// VerdictMemo switches every Verdicts off, or has each reused answer
// checked, for tests.
var VerdictMemo framework.MemoSwitch

// compareVerdicts counts a reused answer against asking again.
func compareVerdicts(c *framework.MemoCheck, kept, asked *framework.Status, node string) {
	same := kept.IsSuccess() == asked.IsSuccess() && kept.Message() == asked.Message()
	c.Compare(same, func() string {
		return fmt.Sprintf("node %s: remembered %q, asked %q", node, kept.Message(), asked.Message())
	})
}
