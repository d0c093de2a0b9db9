package reclaim

import (
	"sort"

	"k8s.io/klog/v2"

	"github.com/caldera-scheduler/caldera/internal/pqueue"
	"github.com/caldera-scheduler/caldera/scheduler/actions/internal/eviction"
	"github.com/caldera-scheduler/caldera/scheduler/actions/internal/placement"
	"github.com/caldera-scheduler/caldera/scheduler/actions/internal/shared"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Name is the action's name in the configuration.
const Name = "reclaim"

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
	queues := pqueue.New(ssn.QueueOrderFn)
	seen := map[api.QueueID]bool{}
	starving := map[api.QueueID]*pqueue.Queue[*api.JobInfo]{}
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
		if !seen[queue.UID] {
			seen[queue.UID] = true
			queues.Push(queue)
		}
		if !ssn.JobStarving(job) {
			continue
		}
		if starving[job.Queue] == nil {
			starving[job.Queue] = pqueue.New(ssn.JobOrderFn)
		}
		starving[job.Queue].Push(job)
		q := pqueue.New(ssn.TaskOrderFn)
		for _, t := range job.TaskStatusIndex[api.Pending] {
			if !placement.Gated(t) {
				q.Push(t)
			}
		}
		tasks[job.UID] = q
	}

	for !queues.Empty() {
		queue := queues.Pop()
		if ssn.Overused(queue) {
			klog.V(3).InfoS("Queue is overused", "queue", queue.Name)
			continue
		}
		jobs := starving[queue.UID]
		for jobs != nil && !jobs.Empty() {
			job := jobs.Pop()
			stmt := framework.NewStatement(ssn)
			for ssn.JobStarving(job) && !tasks[job.UID].Empty() {
				task := tasks[job.UID].Pop()
				if eviction.PreemptNever(task) || !ssn.Preemptive(queue, []*api.TaskInfo{task}) {
					continue
				}
				if st := ssn.PrePredicateFn(task); !st.IsSuccess() {
					continue
				}
				a.reclaimFor(ssn, stmt, task, job, nodes)
			}
			if ssn.JobPipelined(job) {
				stmt.Commit()
			} else {
				stmt.Discard()
			}
			// Volcano hands the queue back while it has jobs left; the loop
			// here serves them all, so the queue then comes up empty.
			if !jobs.Empty() {
				queues.Push(queue)
			}
		}
	}
}

// reclaimFor frees room for the task on the first node where other queues'
// tasks can make it, and pipelines the task there.
func (a *action) reclaimFor(ssn *framework.Session, stmt *framework.Statement, task *api.TaskInfo, job *api.JobInfo, nodes []*api.NodeInfo) {
	predicate := func(t *api.TaskInfo, n *api.NodeInfo) *framework.Status {
		st := ssn.PredicateFn(t, n)
		if st.IsSuccess() || st.Code == framework.Unschedulable {
			return nil
		}
		return st
	}
	feasible, _ := placement.NewFinder(a.search, a.state, nil).Find(task, nodes, predicate)
	for _, n := range feasible {
		var candidates []*api.TaskInfo
		for _, t := range n.Tasks {
			if t.Status != api.Running || !t.Preemptable {
				continue
			}
			owner, ok := ssn.Jobs[t.Job]
			if !ok || owner.Queue == job.Queue {
				continue
			}
			if q, ok := ssn.Queues[owner.Queue]; ok && q.Reclaimable() {
				candidates = append(candidates, t)
			}
		}
		if len(candidates) == 0 {
			continue
		}
		sort.Slice(candidates, func(i, j int) bool { return candidates[i].UID < candidates[j].UID })
		victims := ssn.Reclaimable(task, candidates)
		if err := eviction.Validate(task, n, victims); err != nil {
			continue
		}

		room := n.FutureIdle()
		nodeStmt := framework.NewStatement(ssn)
		evicted := false
		for order := ssn.VictimQueue(victims, task); !order.Empty() && !task.InitResreq.LessEqual(room, api.Zero); {
			v := order.Pop()
			if err := nodeStmt.Evict(v, "reclaim"); err != nil {
				klog.ErrorS(err, "Evict failed", "task", v.Key())
			} else {
				evicted = true
			}
			room.Add(v.Resreq)
		}
		if !task.InitResreq.LessEqual(room, api.Zero) {
			nodeStmt.Discard()
			continue
		}
		if err := nodeStmt.Pipeline(task, n.Name, evicted); err != nil {
			klog.ErrorS(err, "Pipeline failed", "task", task.Key(), "node", n.Name)
			nodeStmt.Discard()
			continue
		}
		stmt.Merge(nodeStmt)
		return
	}
}
