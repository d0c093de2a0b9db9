package placement

import (
	"fmt"
	"sync"
	"sync/atomic"

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

// tableFor returns the class's table for a search over nodes, or nil when
// answers are not kept for it: nodes must be the session's node list itself,
// so that positions are the generations' positions.
func (v *Verdicts) tableFor(class any, n int, nodes []*api.NodeInfo) *classVerdicts {
	list := v.ssn.NodeList
	if class == nil || forgetVerdicts.Load() || n == 0 || len(list) != n || &nodes[0] != &list[0] {
		return nil
	}
	if t := v.byClass[class]; t != nil {
		return t
	}
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

// forgetVerdicts turns every Verdicts off (ForgetVerdicts).
var forgetVerdicts atomic.Bool

// ForgetVerdicts makes searches ask the predicates about every node, as if
// no Verdicts were kept, until restore is called: tests run the same
// sessions both ways and compare what they decide.
func ForgetVerdicts() (restore func()) {
	forgetVerdicts.Store(true)
	return func() { forgetVerdicts.Store(false) }
}

// checking, when set, has every remembered answer asked again (CheckVerdicts).
var checking atomic.Pointer[VerdictCheck]

// VerdictCheck counts remembered answers and those that differ from what
// the predicates answer when asked again.
type VerdictCheck struct {
	mu            sync.Mutex
	reused, wrong int
	first         string
}

// CheckVerdicts makes every search that reuses a remembered answer also ask
// the predicates and compare, until restore is called: tests run sessions
// this way to show that a remembered answer is the one asking gives.
func CheckVerdicts() (c *VerdictCheck, restore func()) {
	c = &VerdictCheck{}
	checking.Store(c)
	return c, func() { checking.Store(nil) }
}

// Result returns how many answers were reused, how many of them differed
// from asking again, and the first that did.
func (c *VerdictCheck) Result() (reused, wrong int, first string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reused, c.wrong, c.first
}

func (c *VerdictCheck) compare(kept, asked *framework.Status, node string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reused++
	if kept.IsSuccess() == asked.IsSuccess() && kept.Message() == asked.Message() {
		return
	}
	c.wrong++
	if c.first == "" {
		c.first = fmt.Sprintf("node %s: remembered %q, asked %q", node, kept.Message(), asked.Message())
	}
}
