package framework

import (
	"math"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// Helpers the actions need beyond the hook entry points: the plugin-only part
// of job ordering, whether a best-node picker exists, allocation-light node
// scoring, and Volcano's session-level Allocate and UnPipeline.

// JobCompare returns the plugins' ordering of two jobs, 0 if indifferent. The
// victims queue of preempt and reclaim uses it so that ties fall through to
// task order rather than to creation time.
func (ssn *Session) JobCompare(l, r *api.JobInfo) int {
	return firstNonZero(ssn.hooks.jobOrder, func(p JobOrderer) int { return p.JobOrder(l, r) })
}

// HasBestNode reports whether any plugin may pick the best node itself, so
// that actions build BestNodeFn's score map only when someone reads it.
func (ssn *Session) HasBestNode() bool { return !ssn.hooks.bestNode.empty() }

// ScoreBuffer is ScoreNodes' working memory, kept by the caller between
// calls so that scoring a task allocates nothing; the zero value is ready.
type ScoreBuffer struct {
	mappers []entry[NodeMapper]
	// mapped[k] holds mapper k's scores for the nodes listed in scored.
	mapped  [][]NodeScore
	scored  []int
	reduced []float64
}

// ScoreNodes writes each node's total score for a task into scores (which
// must be at least as long as nodes), with Volcano's arithmetic: the
// node-order sum, plus each map plugin's floored score after its reducer
// normalised it, plus the batch scores. A node whose per-node scoring fails
// keeps only its reduce and batch parts, as in Volcano. An error from a
// reducer or a batch scorer is returned, and Volcano then picks no node.
//
// It calls the same hooks as NodeOrderMapFn, NodeOrderReduceFn and
// BatchNodeOrderFn, without a map per node.
func (ssn *Session) ScoreNodes(task *api.TaskInfo, nodes []*api.NodeInfo, scores []float64, buf *ScoreBuffer) error {
	if buf == nil {
		buf = &ScoreBuffer{}
	}
	scores = scores[:len(nodes)]
	buf.mappers = buf.mappers[:0]
	for _, tier := range ssn.hooks.nodeMap {
		buf.mappers = append(buf.mappers, tier...)
	}
	mappers := buf.mappers
	for len(buf.mapped) < len(mappers) {
		buf.mapped = append(buf.mapped, nil)
	}
	mapped := buf.mapped[:len(mappers)]
	for k := range mapped {
		mapped[k] = mapped[k][:0]
	}
	withOrder := !ssn.hooks.nodeOrder.empty()
	if !withOrder && len(mappers) == 0 && ssn.hooks.nodeReduce.empty() {
		// Batch scorers alone (the default configuration): nothing to
		// do per node before them.
		clear(scores)
		return ssn.BatchNodeOrderFn(task, nodes, scores)
	}
	scored := buf.scored[:0]
	for i, node := range nodes {
		scores[i] = 0
		total := 0.0
		if withOrder {
			var err error
			if total, err = ssn.NodeOrderFn(task, node); err != nil {
				continue
			}
		}
		ok := true
		for k := range mappers {
			s, err := mappers[k].fn.NodeMap(task, node)
			if err != nil {
				ok = false
				break
			}
			mapped[k] = append(mapped[k][:len(scored)], NodeScore{Name: node.Name, Score: math.Floor(s)})
		}
		if !ok {
			continue
		}
		scores[i] = total
		scored = append(scored, i)
	}
	buf.scored = scored
	for k := range mapped {
		mapped[k] = mapped[k][:len(scored)]
	}

	if cap(buf.reduced) < len(nodes) {
		buf.reduced = make([]float64, len(nodes))
	}
	reduced := buf.reduced[:len(nodes)]
	clear(reduced)
	for _, tier := range ssn.hooks.nodeReduce {
		for _, e := range tier {
			var list []NodeScore
			for k := range mappers {
				if mappers[k].plugin == e.plugin {
					list = mapped[k]
					break
				}
			}
			if err := e.fn.NodeReduce(task, list); err != nil {
				return err
			}
			addReduced(reduced, list, scored, nodes)
		}
	}

	for i := range nodes {
		scores[i] += reduced[i]
	}
	return ssn.BatchNodeOrderFn(task, nodes, scores)
}

// addReduced adds a reducer's output to the per-node sums. Reducers keep the
// list in place, so entry k belongs to node scored[k]; should one reorder it,
// the names still find their nodes.
func addReduced(sum []float64, list []NodeScore, scored []int, nodes []*api.NodeInfo) {
	for k, s := range list {
		if k < len(scored) && nodes[scored[k]].Name == s.Name {
			sum[scored[k]] += s.Score
			continue
		}
		for _, i := range scored {
			if nodes[i].Name == s.Name {
				sum[i] += s.Score
				break
			}
		}
	}
}

// Allocate places a task on a node outside any statement and, once the job
// is ready, sends every allocated task of the job to the cache for binding:
// Volcano's session-level Allocate, which backfill uses.
func (ssn *Session) Allocate(task *api.TaskInfo, node *api.NodeInfo) error {
	if err := ssn.allocate(task, node, api.Allocated); err != nil {
		return err
	}
	job := ssn.Jobs[task.Job]
	if !ssn.JobReady(job) {
		return nil
	}
	allocated := make([]*api.TaskInfo, 0, len(job.TaskStatusIndex[api.Allocated]))
	for _, t := range job.TaskStatusIndex[api.Allocated] {
		allocated = append(allocated, t)
	}
	for _, t := range allocated {
		if err := ssn.dispatch(t); err != nil {
			return err
		}
	}
	return nil
}

// UnPipeline returns a pipelined task to pending and frees what it was
// promised on its node.
func (ssn *Session) UnPipeline(task *api.TaskInfo) error {
	if task.Status != api.Pipelined {
		return nil
	}
	if _, ok := ssn.Jobs[task.Job]; !ok {
		return errJobNotInSession(task.Job)
	}
	ssn.deallocate(task)
	return nil
}

// Merge moves the decisions of other to the end of s, so that a tentative
// per-node statement can join the action's statement once it succeeded.
func (s *Statement) Merge(other *Statement) {
	s.ops = append(s.ops, other.ops...)
	other.ops = nil
}

// HasEvictions reports whether the statement evicts anything.
func (s *Statement) HasEvictions() bool {
	for _, op := range s.ops {
		if op.kind == opEvict {
			return true
		}
	}
	return false
}

type errJobNotInSession api.JobID

func (e errJobNotInSession) Error() string { return "job " + string(e) + " is not in the session" }

// Fit returns the resource fit checks of req against the session's nodes,
// shared by every caller with an equal request, so that an action and a
// plugin checking the same node for the same gang compute the answer once.
func (ssn *Session) Fit(req *api.Resource) *api.Fit {
	if ssn.fits == nil {
		return api.NewFit(req)
	}
	return ssn.fits.For(req)
}
