package allocate

import (
	"slices"
	"sort"

	"k8s.io/klog/v2"

	"github.com/caldera-scheduler/caldera/internal/pqueue"
	"github.com/caldera-scheduler/caldera/scheduler/actions/internal/placement"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// A job whose PodGroup has spec.subGroupPolicy is placed sub-job by
// sub-job, as Volcano v1.15's allocateForJob and allocateForSubJob do:
//   - its sub-jobs are served in order, those still needed for a policy's
//     minSubGroups first, then by SubJobOrderFn; a sub-job is placed until
//     it is ready (SubJobReady) and goes back into the order while it has
//     pending tasks, until the job is ready;
//   - the job is tried in every hypernode of its first gradient that
//     holds it (its own network topology; the cluster top without one),
//     and each sub-job, within that hypernode, in every hypernode of its
//     own first gradient where it fits, keeping the best scored
//     (HyperNodeOrderFn for the sub-job); the job keeps the hypernode where
//     its sub-jobs' best scores sum highest;
//   - once the job is ready its statement is committed and the job's and
//     each sub-job's allocated hypernodes take in the hypernodes chosen.
// Where Volcano picks at random among equal scores, the first in gradient
// (name) order wins. Only the committed trial's sub-job placements move the
// sub-jobs' hypernodes: Volcano's recorder also keeps those of earlier,
// uncommitted trials in the same job hypernode, which can widen a sub-job
// it did not place there.

// sheet is a job's sub-jobs left to place and each one's pending tasks
// (Volcano's JobWorksheet).
type sheet struct {
	subJobs *pqueue.Queue[*api.SubJobInfo]
	tasks   map[api.SubJobID]*pqueue.Queue[*api.TaskInfo]
}

func (s *sheet) empty() bool { return s.subJobs.Empty() }

func (s *sheet) clone() *sheet {
	c := &sheet{subJobs: s.subJobs.Clone(), tasks: make(map[api.SubJobID]*pqueue.Queue[*api.TaskInfo], len(s.tasks))}
	for id, q := range s.tasks {
		c.tasks[id] = q.Clone()
	}
	return c
}

// sheetOf orders the job's sub-jobs that have tasks to place. Sub-jobs
// that are not ready are taken in SubJobOrderFn order, and the first of
// them a policy still needs to reach its minSubGroups go before all
// others.
func (r *run) sheetOf(job *api.JobInfo) *sheet {
	ssn := r.ssn
	ids := make([]api.SubJobID, 0, len(job.SubJobs))
	for id := range job.SubJobs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	ready := map[api.SubJobGID]int32{}
	var waiting []*api.SubJobInfo
	for _, id := range ids {
		sj := job.SubJobs[id]
		if ssn.SubJobReady(job, sj) {
			ready[sj.GID]++
		} else {
			waiting = append(waiting, sj)
		}
	}
	sort.SliceStable(waiting, func(a, b int) bool { return ssn.SubJobOrderFn(waiting[a], waiting[b]) })
	needed := map[api.SubJobID]bool{}
	for _, sj := range waiting {
		if ready[sj.GID] < job.MinSubJobs[sj.GID] {
			needed[sj.UID] = true
			ready[sj.GID]++
		}
	}
	s := &sheet{
		subJobs: pqueue.New(func(l, r *api.SubJobInfo) bool {
			if needed[l.UID] != needed[r.UID] {
				return needed[l.UID]
			}
			return ssn.SubJobOrderFn(l, r)
		}),
		tasks: map[api.SubJobID]*pqueue.Queue[*api.TaskInfo]{},
	}
	for _, id := range ids {
		sj := job.SubJobs[id]
		tasks := pqueue.New(ssn.TaskOrderFn)
		for _, t := range sj.TaskStatusIndex[api.Pending] {
			if placement.Gated(t) || t.Resreq.IsEmpty() {
				continue
			}
			tasks.Push(t)
		}
		if !tasks.Empty() {
			s.subJobs.Push(sj)
			s.tasks[id] = tasks
		}
	}
	return s
}

// jobTrial is the job placed within one hypernode and undone: what it
// would decide, the work it would leave, the sum of its sub-jobs' scores
// and the hypernode each placed sub-job would record.
type jobTrial struct {
	hyperNode *api.HyperNodeInfo
	plan      framework.Plan
	left      *sheet
	score     float64
	placedIn  map[api.SubJobID]string
}

// allocateSubJobs places the job as the package comment says and reports
// whether its decisions were committed.
func (r *run) allocateSubJobs(queue *api.QueueInfo, job *api.JobInfo, s *sheet) bool {
	ssn := r.ssn
	before := make(map[api.SubJobID]string, len(job.SubJobs))
	for id, sj := range job.SubJobs {
		before[id] = sj.AllocatedHyperNode
	}
	for _, gradient := range ssn.HyperNodeGradientFn(job, nil, ssn.HyperNodes.Top(), framework.ScopeJob, framework.PurposeAllocate) {
		var best *jobTrial
		for _, hn := range gradient {
			t := r.trySubJobs(queue, job, s, hn)
			for id, sj := range job.SubJobs {
				sj.AllocatedHyperNode = before[id]
			}
			if t != nil && (best == nil || t.score > best.score) {
				best = t
			}
		}
		if best == nil {
			continue
		}
		stmt := r.replayed(best.plan, "job", job.UID, "hyperNode", best.hyperNode.Name)
		if stmt == nil {
			return false
		}
		*s = *best.left
		if !r.commitIfReady(job, stmt) {
			return false
		}
		h := ssn.HyperNodes
		job.AllocatedHyperNode = h.LCA(job.AllocatedHyperNode, best.hyperNode.Name)
		for id, placed := range best.placedIn {
			if sj := job.SubJobs[id]; sj != nil {
				sj.AllocatedHyperNode = h.LCA(sj.AllocatedHyperNode, placed)
			}
		}
		return true
	}
	return false
}

// trySubJobs places the job's sub-jobs within hn until the job is ready or
// none can be placed, undoes it, and returns the trial when the job was
// ready or pipelined there. It leaves the sub-jobs' allocated hypernodes
// as the trial moved them; the caller puts them back.
func (r *run) trySubJobs(queue *api.QueueInfo, job *api.JobInfo, s *sheet, hn *api.HyperNodeInfo) *jobTrial {
	ssn := r.ssn
	job.JobFitErrors, job.NodesFitErrors = "", map[api.TaskID]*api.FitErrors{}
	t := &jobTrial{hyperNode: hn, left: s.clone(), placedIn: map[api.SubJobID]string{}}
	var stmts []*framework.Statement
	for !t.left.subJobs.Empty() {
		sj := t.left.subJobs.Pop()
		stmt, score, left := r.allocateSubJob(queue, job, sj, t.left.tasks[sj.UID], hn)
		if stmt == nil {
			continue
		}
		stmts = append(stmts, stmt)
		t.plan = append(t.plan, stmt.Plan()...)
		t.score += score
		t.placedIn[sj.UID] = sj.AllocatedHyperNode
		t.left.tasks[sj.UID] = left
		if !left.Empty() {
			t.left.subJobs.Push(sj)
		}
		if ssn.JobReady(job) {
			break
		}
	}
	kept := len(t.plan) > 0 && (ssn.JobReady(job) || ssn.JobPipelined(job))
	for i := len(stmts) - 1; i >= 0; i-- {
		stmts[i].Discard()
	}
	if !kept {
		return nil
	}
	return t
}

// subJobTrial is a sub-job placed within one hypernode and undone.
type subJobTrial struct {
	hyperNode *api.HyperNodeInfo
	plan      framework.Plan
	left      *pqueue.Queue[*api.TaskInfo]
}

// allocateSubJob places the sub-job's tasks within the job's hypernode:
// in every hypernode of the sub-job's first gradient where they fit, on
// trial, then again in the best scored one. It returns that statement,
// the hypernode's score and the tasks left, and moves the sub-job's
// allocated hypernode; nil when the sub-job fits nowhere.
func (r *run) allocateSubJob(queue *api.QueueInfo, job *api.JobInfo, sj *api.SubJobInfo, tasks *pqueue.Queue[*api.TaskInfo], within *api.HyperNodeInfo) (*framework.Statement, float64, *pqueue.Queue[*api.TaskInfo]) {
	ssn := r.ssn
	for _, gradient := range ssn.HyperNodeGradientFn(job, sj, within, framework.ScopeTasks, framework.PurposeAllocate) {
		var fits []subJobTrial
		for _, hn := range gradient {
			resetSubJobFitErrors(job, sj)
			left := tasks.Clone()
			stmt := r.allocateJob(queue, job, sj, left, hn)
			if stmt == nil || stmt.Operations() == 0 {
				continue
			}
			fits = append(fits, subJobTrial{hyperNode: hn, plan: stmt.Plan(), left: left})
			stmt.Discard()
		}
		if len(fits) == 0 {
			continue
		}
		hns := make([]*api.HyperNodeInfo, len(fits))
		for i, f := range fits {
			hns[i] = f.hyperNode
		}
		scores, err := ssn.HyperNodeOrderFn(job, sj, hns)
		if err != nil {
			klog.ErrorS(err, "Scoring hypernodes failed", "job", job.UID, "subJob", sj.UID)
			return nil, 0, tasks
		}
		best := fits[0]
		for _, f := range fits[1:] {
			if scores[f.hyperNode.Name] > scores[best.hyperNode.Name] {
				best = f
			}
		}
		stmt := r.replayed(best.plan, "subJob", sj.UID, "hyperNode", best.hyperNode.Name)
		if stmt == nil {
			return nil, 0, tasks
		}
		sj.AllocatedHyperNode = ssn.HyperNodes.LCA(sj.AllocatedHyperNode, best.hyperNode.Name)
		return stmt, scores[best.hyperNode.Name], best.left
	}
	return nil, 0, tasks
}

// resetSubJobFitErrors forgets why the sub-job's tasks did not fit, so
// that each hypernode is tried afresh.
func resetSubJobFitErrors(job *api.JobInfo, sj *api.SubJobInfo) {
	for id := range job.NodesFitErrors {
		if job.TaskToSubJob[id] == sj.UID {
			delete(job.NodesFitErrors, id)
		}
	}
}
