package allocate

import (
	"fmt"
	"slices"

	"k8s.io/klog/v2"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/internal/pqueue"
	"github.com/caldera-scheduler/caldera/scheduler/actions/internal/placement"
	"github.com/caldera-scheduler/caldera/scheduler/actions/internal/shared"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Name is the action's name in the configuration.
const Name = "allocate"

// Factory returns the action's factory; state is shared with the other
// actions of the registry (the rotating node-search start, whether enqueue
// ran).
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

// run is one execution: the session and what the action reuses across its
// tasks.
type run struct {
	*action
	ssn    *framework.Session
	nodes  []*api.NodeInfo
	scorer *placement.Scorer
	one    [1]*api.NodeInfo
	// req is the current task's request, prepared for fit checks.
	req *api.Fit
	// hyperNodeNodes holds each hypernode's nodes that can take tasks.
	hyperNodeNodes map[string][]*api.NodeInfo
	// verdicts keeps the searches' answers across jobs: gangs alike in
	// their pods meet the same nodes again as the search goes round.
	verdicts *placement.Verdicts
}

// searchClass is a task's class for the search's answers: the predicates'
// class and the request that the search checks before them.
type searchClass struct {
	predicates framework.PredicateClass
	req        *api.Fit
}

func (a *action) Execute(ssn *framework.Session) {
	r := &run{action: a, ssn: ssn, nodes: placement.ReadyNodes(ssn), scorer: placement.NewScorer(ssn),
		verdicts: placement.NewVerdicts(ssn)}
	r.allocate(r.worklist())
}

// worklist holds the queues, each queue's jobs and each job's tasks, in the
// session's orders.
type worklist struct {
	queues *pqueue.Queue[*api.QueueInfo]
	jobs   map[api.QueueID]*pqueue.Queue[*api.JobInfo]
	tasks  map[api.JobID]*pqueue.Queue[*api.TaskInfo]
	// sheets holds, for jobs with sub-group policies, their sub-jobs'
	// work instead of tasks (subjobs.go).
	sheets map[api.JobID]*sheet
}

func (r *run) worklist() *worklist {
	ssn := r.ssn
	w := &worklist{
		queues: pqueue.New(ssn.QueueOrderFn),
		jobs:   map[api.QueueID]*pqueue.Queue[*api.JobInfo]{},
		tasks:  map[api.JobID]*pqueue.Queue[*api.TaskInfo]{},
		sheets: map[api.JobID]*sheet{},
	}
	// As Volcano: with enqueue configured, in any place, admitting is its
	// job alone; a configuration that runs allocate first must not let
	// allocate admit what enqueue's plugins would refuse.
	enqueueConfigured := slices.Contains(ssn.Actions, "enqueue")
	for _, job := range ssn.JobList {
		if job.IsPending() {
			if enqueueConfigured || job.PodGroup == nil {
				continue
			}
			// Without an enqueue action nothing else would admit the job.
			job.PodGroup.Status.Phase = v1beta1.PodGroupInqueue
		}
		if vr := ssn.JobValid(job); vr != nil && !vr.Pass {
			klog.V(4).InfoS("Skip job in allocate", "job", job.UID, "reason", vr.Reason, "message", vr.Message)
			continue
		}
		queue, ok := ssn.Queues[job.Queue]
		if !ok || ssn.TopologyWaits(job) {
			continue
		}
		if job.HasSubJobs() {
			s := r.sheetOf(job)
			if s.empty() {
				continue
			}
			w.sheets[job.UID] = s
		} else {
			tasks := pqueue.New(ssn.TaskOrderFn)
			for _, t := range job.TaskStatusIndex[api.Pending] {
				if placement.Gated(t) || t.Resreq.IsEmpty() {
					continue
				}
				tasks.Push(t)
			}
			if tasks.Empty() {
				continue
			}
			w.tasks[job.UID] = tasks
		}
		if w.jobs[queue.UID] == nil {
			w.jobs[queue.UID] = pqueue.New(ssn.JobOrderFn)
			w.queues.Push(queue)
		}
		w.jobs[queue.UID].Push(job)
	}
	return w
}

func (r *run) allocate(w *worklist) {
	ssn := r.ssn
	for !w.queues.Empty() {
		queue := w.queues.Pop()
		if ssn.Overused(queue) {
			klog.V(3).InfoS("Queue is overused", "queue", queue.Name)
			continue
		}
		jobs := w.jobs[queue.UID]
		if jobs == nil || jobs.Empty() {
			continue
		}
		job := jobs.Pop()
		if s := w.sheets[job.UID]; s != nil {
			if r.allocateSubJobs(queue, job, s) && !s.empty() {
				jobs.Push(job)
			}
		} else if ssn.HasTopology(job) {
			if r.allocateInTopology(queue, job, w) && !w.tasks[job.UID].Empty() {
				jobs.Push(job)
			}
		} else if tasks := w.tasks[job.UID]; r.commitIfReady(job, r.allocateJob(queue, job, nil, tasks, nil)) && !tasks.Empty() {
			jobs.Push(job)
		}
		// The queue's place in the order reflects what it just received.
		w.queues.Push(queue)
	}
}

// commitIfReady commits the job's statement when the job is ready, and
// says whether it did. A pipelined job's statement stays in the session,
// uncommitted, as in Volcano.
func (r *run) commitIfReady(job *api.JobInfo, stmt *framework.Statement) bool {
	if stmt == nil || !r.ssn.JobReady(job) {
		return false
	}
	stmt.Commit()
	return true
}

// allocateJob places the job's tasks (of sub-job sj; nil exactly for a
// job without sub-jobs), on the nodes of within when it is set, until the job (the sub-job) is ready,
// and returns the statement when it is ready or pipelined; otherwise it
// discards it.
func (r *run) allocateJob(queue *api.QueueInfo, job *api.JobInfo, sj *api.SubJobInfo, tasks *pqueue.Queue[*api.TaskInfo], within *api.HyperNodeInfo) *framework.Statement {
	ssn := r.ssn
	stmt := framework.NewStatement(ssn)
	nodes := r.nodes
	if within != nil {
		nodes = r.nodesOf(within)
	}
	// A job with a network topology scores nodes by how close they are to
	// what it placed so far: the lowest hypernode holding all of it. A
	// sub-job does so by its own topology and placement.
	track, placedIn := job.NetworkTopology != nil, job.AllocatedHyperNode
	if sj != nil {
		track, placedIn = sj.NetworkTopology != nil, sj.AllocatedHyperNode
	}
	finder := placement.NewFinder(r.search, r.state, r.verdicts)
	fits := func(task *api.TaskInfo, node *api.NodeInfo) *framework.Status {
		if dim := r.req.Shortfall(node); dim != "" {
			return framework.NewStatus(framework.Unschedulable, "Insufficient "+dim)
		}
		return ssn.PredicateFn(task, node)
	}

	for !tasks.Empty() {
		task := tasks.Pop()
		if !ssn.Allocatable(queue, task) {
			klog.V(3).InfoS("Queue cannot take task", "queue", queue.Name, "task", task.Key())
			continue
		}
		if roleFailedBefore(job, sj, task) {
			fe := api.NewFitErrors()
			fe.SetError(fmt.Sprintf("Task %s with role spec %s has already predicated failed, skip", task.Name, task.TaskRole))
			job.NodesFitErrors[task.UID] = fe
			continue
		}
		if st := ssn.PrePredicateFn(task); !st.IsSuccess() {
			fe := api.NewFitErrors()
			for _, n := range nodes {
				fe.SetNodeError(n.Name, st.Message())
			}
			job.NodesFitErrors[task.UID] = fe
			// As Volcano since b83a5e7a4 (after v1.15.0, which stopped
			// here): the other tasks are tried while the job, or the
			// sub-job, can still reach its minimum.
			if keepGoing(job, sj) {
				continue
			}
			break
		}

		r.req = ssn.Fit(task.InitResreq)
		var feasible []*api.NodeInfo
		var fe *api.FitErrors
		// A node nominated by an earlier preemption is likely the only one
		// that fits, so it is tried alone first.
		if name := task.Pod.Status.NominatedNodeName; name != "" && (within == nil || within.NodeSet[name]) {
			if n, ok := ssn.Nodes[name]; ok && r.req.FitsFutureIdle(n) {
				r.one[0] = n
				feasible, fe = finder.Find(task, r.one[:], fits)
			}
		}
		if len(feasible) == 0 {
			var class any
			if pc, ok := ssn.PredicateClass(task); ok {
				class = searchClass{predicates: pc, req: r.req}
			}
			feasible, fe = finder.FindAs(task, nodes, fits, class)
		}
		if len(feasible) == 0 {
			if fe != nil && within != nil && within.Name != api.ClusterTopHyperNode {
				fe.SetHyperNode(within.Name)
			}
			job.NodesFitErrors[task.UID] = fe
			if keepGoing(job, sj) {
				continue
			}
			break
		}

		if track {
			task.JobAllocatedHyperNode = placedIn
		}
		node := r.scorer.PickIdleFirst(task, r.req, feasible, finder.Positions())
		if node == nil {
			continue
		}
		r.place(stmt, task, node)
		if track {
			if hn := ssn.HyperNodes.LowestOf(node.Name); hn != "" {
				placedIn = ssn.HyperNodes.LCA(hn, placedIn)
			}
		}
		// For a job without sub-jobs (sj nil) these are JobReady and
		// JobPipelined.
		if ssn.SubJobReady(job, sj) {
			break
		}
	}

	if ssn.SubJobReady(job, sj) || ssn.SubJobPipelined(job, sj) {
		return stmt
	}
	stmt.Discard()
	return nil
}

// place allocates the task on the node's idle resources, or pipelines it
// onto resources being released.
func (r *run) place(stmt *framework.Statement, task *api.TaskInfo, node *api.NodeInfo) {
	if r.req.FitsIdle(node) {
		if err := stmt.Allocate(task, node); err != nil {
			klog.ErrorS(err, "Allocate failed", "task", task.Key(), "node", node.Name)
		}
		return
	}
	if r.req.FitsFutureIdle(node) {
		if err := stmt.Pipeline(task, node.Name, false); err != nil {
			klog.ErrorS(err, "Pipeline failed", "task", task.Key(), "node", node.Name)
		}
	}
}
