package gangevict

import (
	"k8s.io/klog/v2"

	"github.com/caldera-scheduler/caldera/scheduler/actions/internal/placement"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// place evicts the victims on trial and pipelines every pending task of
// the job within the domain: for a job with a hard topology, within the
// first hypernode of the domain's eviction gradients (widest first) that
// holds them all; otherwise anywhere in the domain. It keeps the trial in
// stmt and returns true only when the job ends up pipelined; otherwise the
// session is as before. Volcano's BuildNominationPlanInDomain for a job of
// one sub-job.
func (r *Run) place(stmt *framework.Statement, queue *api.QueueInfo, job *api.JobInfo, domain *api.HyperNodeInfo, pending, victims []*api.TaskInfo) bool {
	ssn := r.ssn
	trial := framework.NewStatement(ssn)
	for _, v := range victims {
		if err := trial.Evict(v, r.Name); err != nil {
			klog.ErrorS(err, "Evict failed", "task", v.Key())
		}
	}
	evicted := len(victims) > 0
	placed := false
	if ssn.HasTopology(job) {
	search:
		for _, g := range ssn.HyperNodeGradientFn(job, nil, domain, framework.ScopeTasks, framework.PurposeEvict) {
			for _, hn := range g {
				if hn != nil && r.pipelineAll(trial, queue, job, hn, pending, evicted) {
					placed = true
					break search
				}
			}
		}
	} else {
		placed = r.pipelineAll(trial, queue, job, domain, pending, evicted)
	}
	if !placed || !ssn.JobPipelined(job) {
		trial.Discard()
		return false
	}
	stmt.Merge(trial)
	return true
}

// pipelineAll pipelines each pending task, in order, on the best node of
// the hypernode where it fits once the releasing tasks are gone, adding
// the decisions to stmt. It fails, undoing its own decisions, when a task
// fits nowhere or its queue may not take it, or when the job is then
// neither ready nor pipelined.
func (r *Run) pipelineAll(stmt *framework.Statement, queue *api.QueueInfo, job *api.JobInfo, hn *api.HyperNodeInfo, pending []*api.TaskInfo, evicted bool) bool {
	ssn := r.ssn
	nodes := readyNodes(hn)
	if len(nodes) == 0 {
		return false
	}
	trial := framework.NewStatement(ssn)
	finder := placement.NewFinder(r.Search, r.State, nil)
	ok := func() bool {
		for _, task := range pending {
			if !ssn.Allocatable(queue, task) {
				return false
			}
			if st := ssn.PrePredicateFn(task); !st.IsSuccess() {
				return false
			}
			req := api.NewFit(task.InitResreq)
			fits := func(t *api.TaskInfo, n *api.NodeInfo) *framework.Status {
				if !req.FitsFutureIdle(n) {
					return framework.NewStatus(framework.Unschedulable, "Insufficient "+req.Shortfall(n))
				}
				return ssn.PredicateFn(t, n)
			}
			feasible, _ := finder.Find(task, nodes, fits)
			node := r.scorer.PickIdleFirst(task, req, feasible, nil)
			if node == nil {
				return false
			}
			if err := trial.Pipeline(task, node.Name, evicted); err != nil {
				klog.ErrorS(err, "Pipeline failed", "task", task.Key(), "node", node.Name)
				return false
			}
		}
		return trial.Operations() > 0 && (ssn.JobReady(job) || ssn.JobPipelined(job))
	}()
	if !ok {
		trial.Discard()
		return false
	}
	stmt.Merge(trial)
	return true
}

// readyNodes returns the hypernode's nodes that can take tasks.
func readyNodes(hn *api.HyperNodeInfo) []*api.NodeInfo {
	out := make([]*api.NodeInfo, 0, len(hn.Nodes))
	for _, n := range hn.Nodes {
		if n.Ready {
			out = append(out, n)
		}
	}
	return out
}
