package backfill

import (
	"k8s.io/klog/v2"

	"github.com/caldera-scheduler/caldera/internal/pqueue"
	"github.com/caldera-scheduler/caldera/scheduler/actions/internal/placement"
	"github.com/caldera-scheduler/caldera/scheduler/actions/internal/shared"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Name is the action's name in the configuration.
const Name = "backfill"

// Factory returns the action's factory; state is shared with the other
// actions of the registry.
func Factory(state *shared.State) framework.ActionFactory {
	return func(args framework.Arguments) (framework.Action, error) {
		search, err := placement.ReadOnlySearchArgs(args, state.Search)
		if err != nil {
			return nil, err
		}
		return &action{state: state, search: search}, nil
	}
}

type action struct {
	state  *shared.State
	search placement.SearchArgs
}

func (*action) Name() string { return Name }

func (a *action) Execute(ssn *framework.Session) {
	nodes := placement.ReadyNodes(ssn)
	scorer := placement.NewScorer(ssn)

	for _, task := range pendingBestEffort(ssn) {
		job := ssn.Jobs[task.Job]
		if st := ssn.PrePredicateFn(task); !st.IsSuccess() {
			fe := api.NewFitErrors()
			for _, n := range nodes {
				fe.SetNodeError(n.Name, st.Message())
			}
			job.NodesFitErrors[task.UID] = fe
			continue
		}
		feasible, fe := placement.NewFinder(a.search, a.state, nil).Find(task, nodes, ssn.PredicateFn)
		if len(feasible) == 0 {
			job.NodesFitErrors[task.UID] = fe
			continue
		}
		node := feasible[0]
		if len(feasible) > 1 {
			if node = scorer.Best(task, feasible); node == nil {
				continue
			}
		}
		if err := ssn.Allocate(task, node); err != nil {
			klog.ErrorS(err, "Backfill allocate failed", "task", task.Key(), "node", node.Name)
			fe.SetNodeError(node.Name, err.Error())
			job.NodesFitErrors[task.UID] = fe
		}
	}
}

// pendingBestEffort lists the best-effort tasks to place, queue by queue,
// job by job, in the session's orders.
func pendingBestEffort(ssn *framework.Session) []*api.TaskInfo {
	queues := pqueue.New(ssn.QueueOrderFn)
	jobs := map[api.QueueID]*pqueue.Queue[*api.JobInfo]{}
	tasks := map[api.JobID]*pqueue.Queue[*api.TaskInfo]{}
	for _, job := range ssn.JobList {
		if job.IsPending() {
			continue
		}
		if vr := ssn.JobValid(job); vr != nil && !vr.Pass {
			continue
		}
		queue, ok := ssn.Queues[job.Queue]
		if !ok {
			continue
		}
		add := func(t *api.TaskInfo) {
			if tasks[job.UID] == nil {
				tasks[job.UID] = pqueue.New(ssn.TaskOrderFn)
			}
			tasks[job.UID].Push(t)
		}
		for _, t := range job.TaskStatusIndex[api.Pending] {
			if t.BestEffort && !placement.Gated(t) {
				add(t)
			}
		}
		var pipelined []*api.TaskInfo
		for _, t := range job.TaskStatusIndex[api.Pipelined] {
			if t.BestEffort {
				pipelined = append(pipelined, t)
			}
		}
		for _, t := range pipelined {
			if err := ssn.UnPipeline(t); err != nil {
				klog.ErrorS(err, "Unpipeline failed", "task", t.Key())
				continue
			}
			add(t)
		}
		if tasks[job.UID] == nil {
			continue
		}
		if jobs[queue.UID] == nil {
			jobs[queue.UID] = pqueue.New(ssn.JobOrderFn)
			queues.Push(queue)
		}
		jobs[queue.UID].Push(job)
	}

	var out []*api.TaskInfo
	for !queues.Empty() {
		q := jobs[queues.Pop().UID]
		for !q.Empty() {
			t := tasks[q.Pop().UID]
			for !t.Empty() {
				out = append(out, t.Pop())
			}
		}
	}
	return out
}
