// Package gangpreempt is the gangpreempt action: a starving job takes
// room from lower-priority jobs of its own queue, whole groups of tasks at
// a time, within one domain (a hypernode for a job with a hard network
// topology, the cluster otherwise), and only when every one of its pending
// tasks can then be pipelined there. Volcano v1.15's
// pkg/scheduler/actions/gangpreempt; the shared search is in
// actions/internal/gangevict.
//
// Victims are Bound or Running, preemptable tasks of other jobs in the
// same queue whose job has a lower priority and does not opt out with
// volcano.sh/preemptable: "false" on its PodGroup (a PodGroup that says
// nothing may be preempted here, unlike in preempt). The plugins' evictable
// hooks (gang, priority, conformance, capacity) then decide; the
// preemptable hooks of preempt take no part, as in Volcano.
//
// Arguments: maxDomains (8), allowWholeBundle (true), and the node search
// arguments of allocate (predicateErrorCacheEnable, minNodesToFind,
// minPercentageOfNodesToFind, percentageOfNodesToFind), which Volcano reads
// from allocate's configuration and Caldera from this action's.
package gangpreempt

import (
	"github.com/caldera-scheduler/caldera/scheduler/actions/internal/eviction"
	"github.com/caldera-scheduler/caldera/scheduler/actions/internal/gangevict"
	"github.com/caldera-scheduler/caldera/scheduler/actions/internal/shared"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Name is the action's name in the configuration.
const Name = "gangpreempt"

// Factory returns the action's factory; state is shared with the other
// actions of the registry.
func Factory(state *shared.State) framework.ActionFactory { return gangevict.Factory(state, policy) }

var policy = gangevict.Policy{
	Kind:      framework.EvictionGangPreempt,
	Name:      Name,
	Candidate: candidate,
	// The lowest job in the session's job order gives up its tasks first.
	Before: func(ssn *framework.Session, _ *api.JobInfo) func(l, r *api.JobInfo) bool {
		return func(l, r *api.JobInfo) bool { return !ssn.JobOrderFn(l, r) }
	},
}

func candidate(ssn *framework.Session, starving *api.JobInfo, t *api.TaskInfo) bool {
	if !eviction.PreemptableStatus(t.Status) || !t.Preemptable || t.Job == starving.UID {
		return false
	}
	victim, ok := ssn.Jobs[t.Job]
	return ok && victim.Queue == starving.Queue && victim.EvictableByGang() && victim.Priority < starving.Priority
}
