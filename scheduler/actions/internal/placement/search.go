package placement

import (
	"github.com/caldera-scheduler/caldera/scheduler/actions/internal/shared"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Predicate says why a task may not go on a node, or nil if it may.
type Predicate func(task *api.TaskInfo, node *api.NodeInfo) *framework.Status

// roleKey groups the tasks that share a predicate error cache: one role of
// one job. Tasks without a role never share, since nothing says they are
// alike.
type roleKey struct {
	job  api.JobID
	role string
}

// Finder searches nodes for tasks. One Finder lives as long as Volcano's
// predicate helper of the same use: its error cache remembers, per role of a
// job, the nodes that failed, and a later task of that role skips them.
type Finder struct {
	args     SearchArgs
	state    *shared.State
	failed   map[roleKey]map[string]string
	feasible []*api.NodeInfo
	// positions holds each feasible node's position in the session's
	// node list, when the search walked that list (Positions).
	positions []int
	verdicts  *Verdicts
}

// NewFinder returns a finder whose searches start where the state says.
// Verdicts, which may be nil, keeps predicate answers for FindAs beyond
// this finder's life.
func NewFinder(args SearchArgs, state *shared.State, verdicts *Verdicts) *Finder {
	f := &Finder{args: args, state: state, verdicts: verdicts}
	if verdicts != nil {
		// The action's finders search one after another: they share the
		// buffers, which would otherwise grow anew for every job.
		f.feasible, f.positions = verdicts.feasible[:0], verdicts.positions[:0]
	}
	return f
}

// Find walks nodes round-robin from the shared start index and returns the
// first feasible ones, as many as SearchArgs.NumToFind allows, with the
// reasons the others failed. The returned slice is reused by the next Find.
//
// The walk matches Volcano's search run by a single worker: it goes on until
// it meets one feasible node more than it keeps (or runs out of nodes), and
// the next search starts after the last node it looked at. It never depends
// on timing, so decisions are reproducible.
func (f *Finder) Find(task *api.TaskInfo, nodes []*api.NodeInfo, pred Predicate) ([]*api.NodeInfo, *api.FitErrors) {
	return f.FindAs(task, nodes, pred, nil)
}

// FindAs is Find for a task of a class: a comparable value such that pred
// gives every task of the class the same answer on one state of a node
// (its Generation). The finder's Verdicts then answer for nodes unchanged
// since a task of the class was last asked about them; the walk, its
// answers and where the next search starts are Find's. A nil class is
// Find.
func (f *Finder) FindAs(task *api.TaskInfo, nodes []*api.NodeInfo, pred Predicate, class any) ([]*api.NodeInfo, *api.FitErrors) {
	fe := api.NewFitErrors()
	f.feasible = f.feasible[:0]
	n := len(nodes)
	if n == 0 {
		return f.feasible, fe
	}
	want := f.args.NumToFind(n)

	useCache := f.args.ErrorCache && task.TaskRole != ""
	key := roleKey{job: task.Job, role: task.TaskRole}
	var cached map[string]string
	failedBefore := false
	if useCache {
		cached, failedBefore = f.failed[key]
	}

	var table *classVerdicts
	var gens []uint64
	onList := f.verdicts != nil && f.verdicts.isSessionList(nodes)
	f.positions = f.positions[:0]
	if onList {
		table = f.verdicts.tableFor(class)
		gens = f.verdicts.ssn.NodeGenerations()
	}

	start := f.state.NextNode(n)
	processed := 0
	for i := 0; i < n; i++ {
		pos := start + i
		if pos >= n {
			pos -= n
		}
		node := nodes[pos]
		processed++
		if failedBefore {
			if reason, ok := cached[node.Name]; ok {
				fe.SetNodeReason(node.Name, reason)
				continue
			}
		}
		var st *framework.Status
		if table == nil {
			st = pred(task, node)
		} else if tag := gens[pos] + 1; table.tag[pos] == tag {
			st = table.st[pos]
			if c := VerdictMemo.Checking(); c != nil {
				compareVerdicts(c, st, pred(task, node), node.Name)
			}
		} else if st = pred(task, node); st == nil || st.Code != framework.Error {
			// An error (a plugin that failed) says nothing about the
			// node: the next task asks again.
			table.tag[pos], table.st[pos] = tag, st
		}
		if !st.IsSuccess() {
			reason := st.Message()
			fe.SetNodeReason(node.Name, reason)
			if useCache {
				if cached == nil {
					cached = map[string]string{}
					if f.failed == nil {
						f.failed = map[roleKey]map[string]string{}
					}
					f.failed[key] = cached
				}
				cached[node.Name] = reason
			}
			continue
		}
		if len(f.feasible) == want {
			// One beyond what is kept: this is where Volcano's search stops.
			break
		}
		f.feasible = append(f.feasible, node)
		if onList {
			f.positions = append(f.positions, pos)
		}
	}
	f.state.SetNextNode((start + processed) % n)
	if onList && table == nil {
		f.verdicts.walk(class, processed)
	}
	if f.verdicts != nil {
		f.verdicts.feasible, f.verdicts.positions = f.feasible, f.positions
	}
	return f.feasible, fe
}

// Positions returns, after a search over the session's node list by a
// finder with Verdicts, the position in that list of each node the search
// returned; nil otherwise. The next search reuses the slice.
func (f *Finder) Positions() []int {
	if len(f.positions) == 0 {
		return nil
	}
	return f.positions
}
