package allocate

import (
	"k8s.io/klog/v2"

	"github.com/caldera-scheduler/caldera/internal/pqueue"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// trial is a job placed within one hypernode and undone again: what it
// would decide, the tasks it would leave, and the hypernode's score.
type trial struct {
	hyperNode *api.HyperNodeInfo
	plan      framework.Plan
	left      *pqueue.Queue[*api.TaskInfo]
	score     float64
}

// allocateInTopology places a job with a network topology as Volcano
// v1.15's allocateForJob does for a job's one sub-job: the gradients the
// plugins offer are tried in turn, and within a gradient the job is tried
// in every hypernode (and, in each, in the hypernodes of its own
// gradients, keeping the best scored); the best hypernode of the first
// gradient where any works is kept. It reports whether the job's decisions
// were committed.
//
// Where Volcano picks at random among equal scores, the first hypernode in
// name order wins. A hypernode where the job did not fit is not tried again
// in the same turn: every trial starts from the same state, so it would not
// fit again.
func (r *run) allocateInTopology(queue *api.QueueInfo, job *api.JobInfo, w *worklist) bool {
	ssn := r.ssn
	failed := map[string]bool{}
	for _, gradient := range ssn.HyperNodeGradientFn(job, ssn.HyperNodes.Top()) {
		var best *trial
		for _, hn := range gradient {
			if t := r.bestWithin(queue, job, w.tasks[job.UID], hn, failed); t != nil && (best == nil || t.score > best.score) {
				best = t
			}
		}
		if best == nil {
			continue
		}
		stmt := framework.NewStatement(ssn)
		if err := stmt.Replay(best.plan); err != nil {
			klog.ErrorS(err, "Replaying the job's placement failed", "job", job.UID, "hyperNode", best.hyperNode.Name)
			stmt.Discard()
			return false
		}
		w.tasks[job.UID] = best.left
		if !r.commitIfReady(job, stmt) {
			return false
		}
		job.AllocatedHyperNode = ssn.HyperNodes.LCA(job.AllocatedHyperNode, best.hyperNode.Name)
		return true
	}
	return false
}

// bestWithin tries the job in the hypernodes of each gradient within hn,
// lowest first, and returns the best scored trial of the first gradient
// where the job fits (Volcano's allocateForSubJob); nil when none fits.
func (r *run) bestWithin(queue *api.QueueInfo, job *api.JobInfo, tasks *pqueue.Queue[*api.TaskInfo], hn *api.HyperNodeInfo, failed map[string]bool) *trial {
	ssn := r.ssn
	for _, gradient := range ssn.HyperNodeGradientFn(job, hn) {
		var fits []*trial
		for _, cand := range gradient {
			if failed[cand.Name] {
				continue
			}
			job.NodesFitErrors = map[api.TaskID]*api.FitErrors{}
			left := tasks.Clone()
			stmt := r.allocateJob(queue, job, left, cand)
			if stmt == nil || stmt.Operations() == 0 {
				failed[cand.Name] = true
				continue
			}
			fits = append(fits, &trial{hyperNode: cand, plan: stmt.Plan(), left: left})
			stmt.Discard()
		}
		if len(fits) == 0 {
			continue
		}
		return r.bestScored(job, fits)
	}
	return nil
}

// bestScored scores the hypernodes of the trials and returns the highest.
func (r *run) bestScored(job *api.JobInfo, fits []*trial) *trial {
	hns := make([]*api.HyperNodeInfo, len(fits))
	for i, t := range fits {
		hns[i] = t.hyperNode
	}
	scores, err := r.ssn.HyperNodeOrderFn(job, hns)
	if err != nil {
		klog.ErrorS(err, "Scoring hypernodes failed", "job", job.UID)
	}
	var best *trial
	for _, t := range fits {
		t.score = scores[t.hyperNode.Name]
		if best == nil || t.score > best.score {
			best = t
		}
	}
	return best
}

// nodesOf returns the hypernode's nodes that can take tasks, in session
// order.
func (r *run) nodesOf(hn *api.HyperNodeInfo) []*api.NodeInfo {
	if nodes, ok := r.hyperNodeNodes[hn.Name]; ok {
		return nodes
	}
	if r.hyperNodeNodes == nil {
		r.hyperNodeNodes = map[string][]*api.NodeInfo{}
	}
	nodes := make([]*api.NodeInfo, 0, len(hn.Nodes))
	for _, n := range hn.Nodes {
		if n.Ready {
			nodes = append(nodes, n)
		}
	}
	r.hyperNodeNodes[hn.Name] = nodes
	return nodes
}
