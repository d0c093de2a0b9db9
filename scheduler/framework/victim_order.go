package framework

import (
	"github.com/caldera-scheduler/caldera/internal/pqueue"
	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// VictimQueue orders victims so that the first popped is the first to go,
// as Volcano's BuildVictimsPriorityQueue does; the preempt and reclaim
// actions and the plugins that pick victims (capacity) all take them in
// this order:
//   - within one job, the task its job would schedule last;
//   - a task whose job left the session before one whose job is there;
//   - across queues (when the preemptor's job is known), by
//     VictimQueueOrderFn for the preemptor's queue;
//   - otherwise the job the plugins rank last, then task order reversed.
func (ssn *Session) VictimQueue(victims []*api.TaskInfo, preemptor *api.TaskInfo) *pqueue.Queue[*api.TaskInfo] {
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
