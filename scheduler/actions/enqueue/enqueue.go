package enqueue

import (
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/internal/pqueue"
	"github.com/caldera-scheduler/caldera/scheduler/actions/internal/shared"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Name is the action's name in the configuration.
const Name = "enqueue"

// Factory returns the action's factory. It takes the registry's shared
// state like the other actions' factories; enqueue needs none of it.
func Factory(*shared.State) framework.ActionFactory {
	return func(args framework.Arguments) (framework.Action, error) {
		if err := args.RejectUnknown(); err != nil {
			return nil, err
		}
		return &action{}, nil
	}
}

type action struct{}

func (*action) Name() string { return Name }

func (a *action) Execute(ssn *framework.Session) {

	queues := pqueue.New(ssn.QueueOrderFn)
	seen := map[api.QueueID]bool{}
	pending := map[api.QueueID]*pqueue.Queue[*api.JobInfo]{}
	for _, job := range ssn.JobList {
		queue, ok := ssn.Queues[job.Queue]
		if !ok {
			continue
		}
		if !seen[queue.UID] {
			seen[queue.UID] = true
			queues.Push(queue)
		}
		if job.PodGroup == nil || !job.IsPending() {
			continue
		}
		if pending[job.Queue] == nil {
			pending[job.Queue] = pqueue.New(ssn.JobOrderFn)
		}
		pending[job.Queue].Push(job)
	}

	for !queues.Empty() {
		queue := queues.Pop()
		jobs := pending[queue.UID]
		if jobs == nil || jobs.Empty() {
			continue
		}
		job := jobs.Pop()
		if job.PodGroup.Spec.MinResources == nil || ssn.JobEnqueueable(job) {
			ssn.JobEnqueued(job)
			job.PodGroup.Status.Phase = v1beta1.PodGroupInqueue
		}
		queues.Push(queue)
	}
}
