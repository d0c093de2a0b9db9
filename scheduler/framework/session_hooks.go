package framework

import (
	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// The session's hook entry points. Each names the combination rule it uses
// (combine.go); tie-breaks when every plugin is indifferent follow Volcano.

// JobOrderFn reports whether l goes before r: plugins first, then creation
// time, then UID.
func (ssn *Session) JobOrderFn(l, r *api.JobInfo) bool {
	if c := firstNonZero(ssn.hooks.jobOrder, func(p JobOrderer) int { return p.JobOrder(l, r) }); c != 0 {
		return c < 0
	}
	if !l.CreationTimestamp.Equal(&r.CreationTimestamp) {
		return l.CreationTimestamp.Before(&r.CreationTimestamp)
	}
	return l.UID < r.UID
}

// QueueOrderFn reports whether queue l goes before r.
func (ssn *Session) QueueOrderFn(l, r *api.QueueInfo) bool {
	if c := firstNonZero(ssn.hooks.queueOrder, func(p QueueOrderer) int { return p.QueueOrder(l, r) }); c != 0 {
		return c < 0
	}
	lt, rt := l.CreationTimestamp(), r.CreationTimestamp()
	if !lt.Equal(&rt) {
		return lt.Before(&rt)
	}
	return l.UID < r.UID
}

// VictimQueueOrderFn reports whether victims come from queue l before r, for
// a preemptor in queue p; without an answer, the reverse of QueueOrderFn.
func (ssn *Session) VictimQueueOrderFn(l, r, p *api.QueueInfo) bool {
	if c := firstNonZero(ssn.hooks.victimQueueOrder, func(h VictimQueueOrderer) int { return h.VictimQueueOrder(l, r, p) }); c != 0 {
		return c < 0
	}
	return !ssn.QueueOrderFn(l, r)
}

// TaskCompare returns the plugins' ordering of two tasks, 0 if indifferent.
func (ssn *Session) TaskCompare(l, r *api.TaskInfo) int {
	return firstNonZero(ssn.hooks.taskOrder, func(p TaskOrderer) int { return p.TaskOrder(l, r) })
}

// TaskOrderFn reports whether task l goes before r: plugins first, then the
// pod index within its role, then creation time, then UID.
func (ssn *Session) TaskOrderFn(l, r *api.TaskInfo) bool {
	if c := ssn.TaskCompare(l, r); c != 0 {
		return c < 0
	}
	return api.CompareTaskDefault(l, r)
}

// PrePredicateFn: every plugin must pass.
func (ssn *Session) PrePredicateFn(task *api.TaskInfo) *Status {
	return firstFailure(ssn.hooks.prePredicate, func(p PrePredicater) *Status { return p.PrePredicate(task) })
}

// PredicateFn: every plugin must pass.
func (ssn *Session) PredicateFn(task *api.TaskInfo, node *api.NodeInfo) *Status {
	return firstFailure(ssn.hooks.predicate, func(p Predicater) *Status { return p.Predicate(task, node) })
}

// HasNodeOrder reports whether any plugin scores nodes, so that actions can
// skip scoring altogether when none does.
func (ssn *Session) HasNodeOrder() bool {
	return !ssn.hooks.nodeOrder.empty() || !ssn.hooks.batchNodeOrder.empty() || !ssn.hooks.nodeMap.empty()
}

// NodeOrderFn sums the per-node scores.
func (ssn *Session) NodeOrderFn(task *api.TaskInfo, node *api.NodeInfo) (float64, error) {
	total := 0.0
	var err error
	each(ssn.hooks.nodeOrder, func(p NodeScorer) {
		if err != nil {
			return
		}
		var s float64
		s, err = p.NodeOrder(task, node)
		total += s
	})
	return total, err
}

// BatchNodeOrderFn adds every batch scorer's score of node i to scores[i].
func (ssn *Session) BatchNodeOrderFn(task *api.TaskInfo, nodes []*api.NodeInfo, scores []float64) error {
	for _, tier := range ssn.hooks.batchNodeOrder {
		for _, e := range tier {
			if err := e.fn.BatchNodeOrder(task, nodes, scores); err != nil {
				return err
			}
		}
	}
	return nil
}

// NodeOrderMapFn returns, for one node, each map plugin's score by plugin name
// and the sum of the plain node-order scores.
func (ssn *Session) NodeOrderMapFn(task *api.TaskInfo, node *api.NodeInfo) (map[string]float64, float64, error) {
	total, err := ssn.NodeOrderFn(task, node)
	if err != nil || ssn.hooks.nodeMap.empty() {
		return nil, total, err
	}
	byPlugin := map[string]float64{}
	for _, tier := range ssn.hooks.nodeMap {
		for _, e := range tier {
			s, err := e.fn.NodeMap(task, node)
			if err != nil {
				return byPlugin, total, err
			}
			byPlugin[e.plugin] = s
		}
	}
	return byPlugin, total, nil
}

// NodeOrderReduceFn lets each reduce plugin normalise its own map scores and
// sums them per node.
func (ssn *Session) NodeOrderReduceFn(task *api.TaskInfo, byPlugin map[string][]NodeScore) (map[string]float64, error) {
	out := map[string]float64{}
	for _, tier := range ssn.hooks.nodeReduce {
		for _, e := range tier {
			scores := byPlugin[e.plugin]
			if err := e.fn.NodeReduce(task, scores); err != nil {
				return out, err
			}
			for _, s := range scores {
				out[s.Name] += s.Score
			}
		}
	}
	return out, nil
}

// BestNodeFn: the first plugin that picks a node decides.
func (ssn *Session) BestNodeFn(task *api.TaskInfo, scores map[float64][]*api.NodeInfo) *api.NodeInfo {
	return firstNonNil(ssn.hooks.bestNode, func(p BestNodePicker) *api.NodeInfo { return p.BestNode(task, scores) })
}

// Preemptable returns the victims the plugins allow a preemptor to take.
func (ssn *Session) Preemptable(preemptor *api.TaskInfo, preemptees []*api.TaskInfo) []*api.TaskInfo {
	return intersectVictims(ssn.hooks.preemptable, func(p PreemptableFilter) ([]*api.TaskInfo, bool) {
		return p.Preemptable(preemptor, preemptees)
	})
}

// Reclaimable returns the victims the plugins allow a reclaimer to take.
func (ssn *Session) Reclaimable(reclaimer *api.TaskInfo, reclaimees []*api.TaskInfo) []*api.TaskInfo {
	return intersectVictims(ssn.hooks.reclaimable, func(p ReclaimableFilter) ([]*api.TaskInfo, bool) {
		return p.Reclaimable(reclaimer, reclaimees)
	})
}

// Evictable returns the gang eviction's candidates the plugins let go.
func (ssn *Session) Evictable(ctx *EvictionContext, candidates []*api.TaskInfo) []*api.TaskInfo {
	return intersectVictims(ssn.hooks.evictable, func(p EvictableFilter) ([]*api.TaskInfo, bool) {
		return p.Evictable(ctx, candidates)
	})
}

// Overused: any plugin saying so is enough.
func (ssn *Session) Overused(q *api.QueueInfo) bool {
	return anyTrue(ssn.hooks.overused, func(p OverusedChecker) bool { return p.Overused(q) })
}

// Allocatable: every plugin must agree.
func (ssn *Session) Allocatable(q *api.QueueInfo, candidate *api.TaskInfo) bool {
	return allTrue(ssn.hooks.allocatable, func(p AllocatableChecker) bool { return p.Allocatable(q, candidate) })
}

// Preemptive: every plugin must agree.
func (ssn *Session) Preemptive(q *api.QueueInfo, candidates []*api.TaskInfo) bool {
	return allTrue(ssn.hooks.preemptive, func(p PreemptiveChecker) bool { return p.Preemptive(q, candidates) })
}

// JobReady: every plugin must agree.
func (ssn *Session) JobReady(j *api.JobInfo) bool {
	return allTrue(ssn.hooks.jobReady, func(p JobReadyChecker) bool { return p.JobReady(j) })
}

// JobPipelined: permit/abstain/reject votes.
func (ssn *Session) JobPipelined(j *api.JobInfo) bool {
	return voted(ssn.hooks.jobPipelined, func(p JobPipelinedVoter) Vote { return p.JobPipelined(j) })
}

// JobEnqueueable: permit/abstain/reject votes.
func (ssn *Session) JobEnqueueable(j *api.JobInfo) bool {
	return voted(ssn.hooks.jobEnqueueable, func(p JobEnqueueableVoter) Vote { return p.JobEnqueueable(j) })
}

// JobEnqueued tells every plugin that a job was admitted.
func (ssn *Session) JobEnqueued(j *api.JobInfo) {
	each(ssn.hooks.jobEnqueued, func(p JobEnqueuedObserver) { p.JobEnqueued(j) })
}

// JobStarving: the first tier with the hook decides; all of it must agree.
func (ssn *Session) JobStarving(j *api.JobInfo) bool {
	return firstTierAllTrue(ssn.hooks.jobStarving, func(p JobStarvingChecker) bool { return p.JobStarving(j) })
}

// JobValid returns the first failing validation, or nil.
func (ssn *Session) JobValid(j *api.JobInfo) *ValidateResult {
	if r := ssn.refused[j.UID]; r != nil {
		return r
	}
	for _, tier := range ssn.hooks.jobValid {
		for _, e := range tier {
			if r := e.fn.JobValid(j); r != nil && !r.Pass {
				return r
			}
		}
	}
	return nil
}

// VictimTasks returns the tasks the plugins want evicted.
func (ssn *Session) VictimTasks(tasks []*api.TaskInfo) []*api.TaskInfo {
	return unionVictims(ssn.hooks.victimTasks, func(p VictimTasksProvider) []*api.TaskInfo { return p.VictimTasks(tasks) })
}

// TargetJob: the first plugin with the hook decides.
func (ssn *Session) TargetJob(jobs []*api.JobInfo) *api.JobInfo {
	for _, tier := range ssn.hooks.targetJob {
		for _, e := range tier {
			return e.fn.TargetJob(jobs)
		}
	}
	return nil
}

// ReservedNodes lets every plugin set nodes aside.
func (ssn *Session) ReservedNodes() {
	each(ssn.hooks.reservedNodes, func(p ReservedNodesMarker) { p.ReservedNodes() })
}
