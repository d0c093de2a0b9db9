// Package gangreclaim is the gangreclaim action: a starving job takes
// room from other queues' jobs, whole groups of tasks at a time, within
// one domain (a hypernode for a job with a hard network topology, the
// cluster otherwise), and only when every one of its pending tasks can
// then be pipelined there. Volcano v1.15's
// pkg/scheduler/actions/gangreclaim; the shared search is in
// actions/internal/gangevict.
//
// Overused queues are skipped, and a job whose queue's preemptive hooks
// refuse its pending tasks does not reclaim. Victims are Running,
// preemptable tasks of jobs in other, reclaimable queues whose job does
// not opt out with volcano.sh/preemptable: "false" on its PodGroup.
// Victim jobs are ordered by their queues in the session's victim-queue
// order as the starving job's queue sees it. The plugins' evictable hooks
// (gang, priority, conformance, capacity) then decide; the reclaimable
// hooks of reclaim take no part, as in Volcano.
//
// Arguments: as gangpreempt's.
package gangreclaim

import (
	"github.com/caldera-scheduler/caldera/scheduler/actions/internal/gangevict"
	"github.com/caldera-scheduler/caldera/scheduler/actions/internal/shared"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Name is the action's name in the configuration.
const Name = "gangreclaim"

// Factory returns the action's factory; state is shared with the other
// actions of the registry.
func Factory(state *shared.State) framework.ActionFactory { return gangevict.Factory(state, policy) }

var policy = gangevict.Policy{
	Kind: framework.EvictionGangReclaim,
	Name: Name,
	SkipQueue: func(ssn *framework.Session, q *api.QueueInfo) bool {
		return ssn.Overused(q)
	},
	MayEvictFor: func(ssn *framework.Session, q *api.QueueInfo, pending []*api.TaskInfo) bool {
		return ssn.Preemptive(q, pending)
	},
	Candidate: candidate,
	Before:    before,
}

func candidate(ssn *framework.Session, starving *api.JobInfo, t *api.TaskInfo) bool {
	if t.Status != api.Running || !t.Preemptable {
		return false
	}
	victim, ok := ssn.Jobs[t.Job]
	if !ok || victim.Queue == starving.Queue || !victim.EvictableByGang() {
		return false
	}
	q := ssn.Queues[victim.Queue]
	return q != nil && q.Reclaimable()
}

// before orders victim jobs by their queues: in the victim-queue order as
// the starving job's queue sees it (the queue order when that queue is
// gone); jobs of one queue tie.
func before(ssn *framework.Session, starving *api.JobInfo) func(l, r *api.JobInfo) bool {
	return func(l, r *api.JobInfo) bool {
		lq, rq := ssn.Queues[l.Queue], ssn.Queues[r.Queue]
		if lq == nil || rq == nil || lq.UID == rq.UID {
			return false
		}
		if pq := ssn.Queues[starving.Queue]; pq != nil {
			return ssn.VictimQueueOrderFn(lq, rq, pq)
		}
		return ssn.QueueOrderFn(lq, rq)
	}
}
