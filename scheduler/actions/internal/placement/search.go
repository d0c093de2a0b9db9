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
}

// NewFinder returns a finder whose searches start where the state says.
func NewFinder(args SearchArgs, state *shared.State) *Finder {
	return &Finder{args: args, state: state}
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

	start := f.state.NextNode(n)
	processed := 0
	for i := 0; i < n; i++ {
		node := nodes[(start+i)%n]
		processed++
		if failedBefore {
			if reason, ok := cached[node.Name]; ok {
				fe.SetNodeReason(node.Name, reason)
				continue
			}
		}
		if st := pred(task, node); !st.IsSuccess() {
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
	}
	f.state.SetNextNode((start + processed) % n)
	return f.feasible, fe
}
