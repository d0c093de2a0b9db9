package preempt

import (
	"errors"
	"fmt"
	"sort"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/caldera-scheduler/caldera/internal/pqueue"
	"github.com/caldera-scheduler/caldera/scheduler/actions/internal/eviction"
	"github.com/caldera-scheduler/caldera/scheduler/actions/internal/placement"
	"github.com/caldera-scheduler/caldera/scheduler/actions/internal/shared"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Name is the action's name in the configuration.
const Name = "preempt"

// Argument names, Volcano's.
const (
	TopologyAwareKey               = "enableTopologyAwarePreemption"
	TopologyAwareWorkersKey        = "topologyAwarePreemptWorkerNum"
	MinCandidateNodesPercentageKey = "minCandidateNodesPercentage"
	MinCandidateNodesAbsoluteKey   = "minCandidateNodesAbsolute"
	MaxCandidateNodesAbsoluteKey   = "maxCandidateNodesAbsolute"
)

// Factory returns the action's factory; state is shared with the other
// actions of the registry.
func Factory(state *shared.State) framework.ActionFactory {
	return func(args framework.Arguments) (framework.Action, error) {
		known := append([]string{TopologyAwareKey, TopologyAwareWorkersKey, MinCandidateNodesPercentageKey,
			MinCandidateNodesAbsoluteKey, MaxCandidateNodesAbsoluteKey}, placement.SearchKeys...)
		if err := args.RejectUnknown(known...); err != nil {
			return nil, err
		}
		a := &action{state: state, workers: 16, minCandidatePercentage: 10, minCandidates: 1, maxCandidates: 100}
		var err error
		if a.search, err = placement.ReadSearchArgs(args, state.Search); err != nil {
			return nil, err
		}
		for _, err := range []error{
			args.Bool(TopologyAwareKey, &a.topologyAware),
			args.Int(TopologyAwareWorkersKey, &a.workers),
			args.Int(MinCandidateNodesPercentageKey, &a.minCandidatePercentage),
			args.Int(MinCandidateNodesAbsoluteKey, &a.minCandidates),
			args.Int(MaxCandidateNodesAbsoluteKey, &a.maxCandidates),
		} {
			if err != nil {
				return nil, err
			}
		}
		return a, nil
	}
}

type action struct {
	state  *shared.State
	search placement.SearchArgs

	topologyAware          bool
	workers                int
	minCandidatePercentage int
	minCandidates          int
	maxCandidates          int
}

func (*action) Name() string { return Name }

// run is one execution of the action.
type run struct {
	*action
	ssn    *framework.Session
	nodes  []*api.NodeInfo
	finder *placement.Finder
	scorer *placement.Scorer
}

// victimFilter says whether a task on a node may be taken for a preemptor.
type victimFilter func(task *api.TaskInfo) bool

func (a *action) Execute(ssn *framework.Session) {
	r := &run{action: a, ssn: ssn, nodes: placement.ReadyNodes(ssn),
		finder: placement.NewFinder(a.search, a.state, nil), scorer: placement.NewScorer(ssn)}

	preemptors := map[api.QueueID]*pqueue.Queue[*api.JobInfo]{}
	preemptorTasks := map[api.JobID]*pqueue.Queue[*api.TaskInfo]{}
	starving := map[api.QueueID][]*api.JobInfo{}
	for _, job := range ssn.JobList {
		if job.IsPending() {
			continue
		}
		if vr := ssn.JobValid(job); vr != nil && !vr.Pass {
			continue
		}
		if _, ok := ssn.Queues[job.Queue]; !ok || !ssn.JobStarving(job) {
			continue
		}
		if preemptors[job.Queue] == nil {
			preemptors[job.Queue] = pqueue.New(ssn.JobOrderFn)
		}
		preemptors[job.Queue].Push(job)
		starving[job.Queue] = append(starving[job.Queue], job)
		preemptorTasks[job.UID] = pendingTasks(ssn, job)
	}

	queues := pqueue.New(ssn.QueueOrderFn)
	for id := range preemptors {
		queues.Push(ssn.Queues[id])
	}
	for !queues.Empty() {
		queue := queues.Pop()
		r.betweenJobs(preemptors[queue.UID], preemptorTasks)
		jobs := starving[queue.UID]
		sort.SliceStable(jobs, func(i, j int) bool { return ssn.JobOrderFn(jobs[i], jobs[j]) })
		for _, job := range jobs {
			r.withinJob(job)
		}
	}
}

func pendingTasks(ssn *framework.Session, job *api.JobInfo) *pqueue.Queue[*api.TaskInfo] {
	q := pqueue.New(ssn.TaskOrderFn)
	for _, t := range job.TaskStatusIndex[api.Pending] {
		if !placement.Gated(t) {
			q.Push(t)
		}
	}
	return q
}

// betweenJobs lets the queue's starving jobs, best first, take resources
// from the queue's other jobs.
func (r *run) betweenJobs(jobs *pqueue.Queue[*api.JobInfo], tasks map[api.JobID]*pqueue.Queue[*api.TaskInfo]) {
	ssn := r.ssn
	for !jobs.Empty() {
		job := jobs.Pop()
		stmt := framework.NewStatement(ssn)
		for ssn.JobStarving(job) && !tasks[job.UID].Empty() {
			preemptor := tasks[job.UID].Pop()
			filter := func(t *api.TaskInfo) bool {
				if !eviction.PreemptableStatus(t.Status) || (preemptor.BestEffort && !t.BestEffort) || !t.Preemptable {
					return false
				}
				owner, ok := ssn.Jobs[t.Job]
				return ok && owner.Queue == job.Queue && t.Job != preemptor.Job
			}
			if _, err := r.preempt(stmt, preemptor, filter); err != nil {
				klog.V(3).InfoS("Preemption failed", "task", preemptor.Key(), "err", err)
			}
		}
		if ssn.JobPipelined(job) {
			stmt.Commit()
		} else {
			stmt.Discard()
		}
	}
}

// withinJob lets the job's pending tasks take resources from its own tasks,
// until one cannot.
func (r *run) withinJob(job *api.JobInfo) {
	tasks := pendingTasks(r.ssn, job)
	for !tasks.Empty() {
		preemptor := tasks.Pop()
		filter := func(t *api.TaskInfo) bool {
			if !eviction.PreemptableStatus(t.Status) || (preemptor.BestEffort && !t.BestEffort) || !t.Preemptable {
				return false
			}
			return t.Job == preemptor.Job
		}
		stmt := framework.NewStatement(r.ssn)
		placed, err := r.preempt(stmt, preemptor, filter)
		if err != nil {
			klog.V(3).InfoS("Preemption failed", "task", preemptor.Key(), "err", err)
		}
		if !placed {
			stmt.Discard()
			return
		}
		stmt.Commit()
	}
}

// preempt tries to make room for the preemptor on one node and pipeline it
// there, adding the decisions to stmt.
func (r *run) preempt(stmt *framework.Statement, preemptor *api.TaskInfo, filter victimFilter) (bool, error) {
	if err := r.eligible(preemptor); err != nil {
		return false, err
	}
	if st := r.ssn.PrePredicateFn(preemptor); !st.IsSuccess() {
		return false, fmt.Errorf("prePredicate for task %s failed: %s", preemptor.Key(), st.Message())
	}
	feasible, _ := r.finder.Find(preemptor, r.nodes, r.predicate)
	// The finder reuses its slice; preemption may search again.
	candidates := append([]*api.NodeInfo(nil), feasible...)
	if r.topologyAware {
		return r.topologyAwarePreempt(stmt, preemptor, filter, candidates)
	}
	return r.normalPreempt(stmt, preemptor, filter, candidates), nil
}

// predicate rules out only the nodes where evicting cannot help.
func (r *run) predicate(task *api.TaskInfo, node *api.NodeInfo) *framework.Status {
	st := r.ssn.PredicateFn(task, node)
	if st.IsSuccess() || st.Code == framework.Unschedulable {
		return nil
	}
	return st
}

// fitsOn reports whether the preemptor could be placed on the node now.
func (r *run) fitsOn(queue *api.QueueInfo, preemptor *api.TaskInfo, node *api.NodeInfo) bool {
	return r.ssn.Allocatable(queue, preemptor) &&
		placement.FitsFutureIdle(preemptor.InitResreq, node) &&
		r.ssn.PredicateFn(preemptor, node).IsSuccess()
}

// candidatesOn lists the tasks on a node that the filter lets go, in a
// stable order.
func candidatesOn(node *api.NodeInfo, filter victimFilter) []*api.TaskInfo {
	var out []*api.TaskInfo
	for _, t := range node.Tasks {
		if filter(t) {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].UID < out[j].UID })
	return out
}

func (r *run) normalPreempt(stmt *framework.Statement, preemptor *api.TaskInfo, filter victimFilter, nodes []*api.NodeInfo) bool {
	ssn := r.ssn
	job, ok := ssn.Jobs[preemptor.Job]
	if !ok {
		return false
	}
	queue := ssn.Queues[job.Queue]
	for _, node := range r.scorer.Sorted(preemptor, nodes) {
		victims := ssn.Preemptable(preemptor, candidatesOn(node, filter))
		if err := eviction.Validate(preemptor, node, victims); err != nil {
			continue
		}
		nodeStmt := framework.NewStatement(ssn)
		order := ssn.VictimQueue(victims, preemptor)
		fits, evicted := r.fitsOn(queue, preemptor, node), false
		for !fits && !order.Empty() {
			v := order.Pop()
			if err := nodeStmt.Evict(v, "preempt"); err != nil {
				klog.ErrorS(err, "Evict failed", "task", v.Key())
			} else {
				evicted = true
			}
			fits = r.fitsOn(queue, preemptor, node)
		}
		if !fits {
			nodeStmt.Discard()
			continue
		}
		if err := nodeStmt.Pipeline(preemptor, node.Name, evicted); err != nil {
			klog.ErrorS(err, "Pipeline failed", "task", preemptor.Key(), "node", node.Name)
			nodeStmt.Discard()
			continue
		}
		stmt.Merge(nodeStmt)
		return true
	}
	return false
}

// eligible rejects a preemptor that may not or need not preempt.
func (r *run) eligible(preemptor *api.TaskInfo) error {
	if eviction.PreemptNever(preemptor) {
		return errors.New("not eligible to preempt: preemptionPolicy is Never")
	}
	name := preemptor.Pod.Status.NominatedNodeName
	if name == "" {
		return nil
	}
	node, ok := r.ssn.Nodes[name]
	if !ok {
		return errors.New("not eligible to preempt: the nominated node is not in the session")
	}
	st := r.ssn.PredicateFn(preemptor, node)
	if st.IsSuccess() {
		return errors.New("not eligible to preempt: the nominated node fits already")
	}
	if st.Unresolvable() {
		return nil
	}
	prio := podPriority(preemptor.Pod)
	for _, t := range node.Tasks {
		if podPriority(t.Pod) < prio && terminatingByPreemption(t.Pod) {
			return errors.New("not eligible to preempt: a pod preempted earlier is still terminating on the nominated node")
		}
	}
	return nil
}

func podPriority(pod *v1.Pod) int32 {
	if pod != nil && pod.Spec.Priority != nil {
		return *pod.Spec.Priority
	}
	return 0
}

func terminatingByPreemption(pod *v1.Pod) bool {
	if pod == nil || pod.DeletionTimestamp == nil {
		return false
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == v1.DisruptionTarget {
			return c.Status == v1.ConditionTrue && c.Reason == v1.PodReasonPreemptionByScheduler
		}
	}
	return false
}
