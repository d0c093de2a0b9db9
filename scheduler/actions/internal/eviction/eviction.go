// Package eviction holds what preempt and reclaim share: which tasks may be
// victims at all, whether a set of victims makes room, and the order in which
// victims are taken.
package eviction

import (
	"fmt"

	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/scheduler/actions/internal/pqueue"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// PreemptableStatus reports whether a task in this status may be preempted:
// it is bound or running.
func PreemptableStatus(s api.TaskStatus) bool { return s == api.Bound || s == api.Running }

// Validate reports whether evicting every victim would leave room for the
// preemptor on the node. No victims can still be enough: an earlier
// eviction may have freed the room already.
func Validate(preemptor *api.TaskInfo, node *api.NodeInfo, victims []*api.TaskInfo) error {
	room := node.FutureIdle()
	for _, v := range victims {
		room.Add(v.Resreq)
	}
	if !preemptor.InitResreq.LessEqual(room, api.Zero) {
		return fmt.Errorf("not enough resources: requested <%v>, but future idle <%v>", preemptor.InitResreq, room)
	}
	return nil
}

// Queue orders victims so that the first popped is the first to go:
//   - within one job, the task its job would schedule last;
//   - a task whose job left the session before one whose job is there;
//   - across queues (when the preemptor's job is known), by
//     VictimQueueOrderFn for the preemptor's queue;
//   - otherwise the job the plugins rank last, then task order reversed.
func Queue(ssn *framework.Session, victims []*api.TaskInfo, preemptor *api.TaskInfo) *pqueue.Queue[*api.TaskInfo] {
	reversedTask := func(l, r *api.TaskInfo) bool { return !ssn.TaskOrderFn(l, r) }
	byJob := func(lj, rj *api.JobInfo, l, r *api.TaskInfo) bool {
		if c := ssn.JobCompare(lj, rj); c != 0 {
			return c > 0
		}
		return reversedTask(l, r)
	}
	q := pqueue.New(func(l, r *api.TaskInfo) bool {
		if l.Job == r.Job {
			return reversedTask(l, r)
		}
		lj, lok := ssn.Jobs[l.Job]
		rj, rok := ssn.Jobs[r.Job]
		if !lok || !rok {
			if !lok && !rok {
				return reversedTask(l, r)
			}
			return !lok
		}
		pj, pok := ssn.Jobs[preemptor.Job]
		if !pok || lj.Queue == rj.Queue {
			return byJob(lj, rj, l, r)
		}
		return ssn.VictimQueueOrderFn(ssn.Queues[lj.Queue], ssn.Queues[rj.Queue], ssn.Queues[pj.Queue])
	})
	for _, v := range victims {
		q.Push(v)
	}
	return q
}

// PreemptNever reports whether the task's pod refuses to preempt others.
func PreemptNever(task *api.TaskInfo) bool {
	p := task.Pod.Spec.PreemptionPolicy
	return p != nil && *p == v1.PreemptNever
}
