package runtime

import (
	"fmt"
	"sort"

	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// The hooks with one small answer. A failed call gives the fail-safe
// answer (nothing is admitted, committed or evicted because of a module that
// could not answer); an ignorable plugin instead stops taking part, which
// is the neutral answer of each hook.

var (
	_ framework.PrePredicater       = &adapter{}
	_ framework.BestNodePicker      = &adapter{}
	_ framework.PreemptableFilter   = &adapter{}
	_ framework.ReclaimableFilter   = &adapter{}
	_ framework.EvictableFilter     = &adapter{}
	_ framework.OverusedChecker     = &adapter{}
	_ framework.AllocatableChecker  = &adapter{}
	_ framework.PreemptiveChecker   = &adapter{}
	_ framework.JobReadyChecker     = &adapter{}
	_ framework.JobPipelinedVoter   = &adapter{}
	_ framework.JobValidator        = &adapter{}
	_ framework.JobEnqueueableVoter = &adapter{}
	_ framework.JobStarvingChecker  = &adapter{}
	_ framework.VictimTasksProvider = &adapter{}
	_ framework.TargetJobPicker     = &adapter{}
)

// ask calls a hook with one answer; false means the caller must give its
// fail-safe (or, when skipped, neutral) answer.
func (a *adapter) ask(hook abi.Hook, args any, out any) bool {
	if a.skipped {
		return false
	}
	if err := a.call(hook, args, out); err != nil {
		a.failed(hook, err)
		return false
	}
	return true
}

// failSafe picks between the fail-safe answer and, for an ignorable plugin
// that stopped taking part, the neutral one.
func failSafe[T any](a *adapter, safe, neutral T) T {
	if a.skipped {
		return neutral
	}
	return safe
}

func (a *adapter) PrePredicate(task *api.TaskInfo) *framework.Status {
	t, ok := a.handles.tasks[task.UID]
	if !ok {
		return framework.NewStatus(framework.Error, fmt.Sprintf("plugin %s: task %s is not in the session view", a.name, task.Key()))
	}
	if a.mod.Implements(abi.HookPrePredicate) {
		v, ok := a.prePredicate(t)
		if !ok {
			if st := failSafe(a, framework.NewStatus(framework.Error, fmt.Sprintf("plugin %s failed in %s", a.name, abi.HookPrePredicate)), nil); st != nil {
				return st
			}
		} else if v.Code != abi.OK {
			return framework.NewStatus(framework.Code(v.Code), v.Reason)
		}
	}
	// The volume and device checks' own, after the module's, where the
	// native plugin runs them.
	if a.claims != nil {
		return a.claims.PrePredicate(task)
	}
	return nil
}

// prePredicate asks for task t's verdict, or recalls the one given for
// its shape when the session's module promised verdicts by shape.
func (a *adapter) prePredicate(t int32) (abi.Verdict, bool) {
	var v abi.PreVerdict
	if a.skipped {
		return abi.Verdict{}, false
	}
	// Reopened first, so that the promise read below is the one of the
	// instance that will answer.
	if err := a.ready(); err != nil {
		a.failed(abi.HookPrePredicate, err)
		return abi.Verdict{}, false
	}
	shape, keep := a.shapeOf(t)
	keep = keep && a.preByShape
	if kept, ok := a.keptPre[shape]; keep && ok {
		return kept, true
	}
	if !a.ask(abi.HookPrePredicate, abi.TaskArgs{Task: t}, &v) {
		return abi.Verdict{}, false
	}
	verdict := abi.Verdict{Code: v.Code, Reason: v.Reason}
	a.lastPre.task, a.lastPre.epoch, a.lastPre.rules = t, a.epoch, nil
	// Rules refine a node-local class; without one they change nothing.
	if a.classes != nil && a.classes[t] >= 0 {
		a.lastPre.rules = a.compileRules(v.Rules)
	}
	if keep {
		if a.keptPre == nil {
			a.keptPre = map[uint64]abi.Verdict{}
		}
		a.keptPre[shape] = verdict
	}
	return verdict, true
}

// BestNode sends the candidates best score first (ties in node order) and
// takes the module's pick if it is one of them.
func (a *adapter) BestNode(task *api.TaskInfo, scores map[float64][]*api.NodeInfo) *api.NodeInfo {
	t, ok := a.handles.tasks[task.UID]
	if !ok || a.skipped {
		return nil
	}
	levels := make([]float64, 0, len(scores))
	for s := range scores {
		levels = append(levels, s)
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(levels)))
	args := abi.BestNodeArgs{Task: t}
	for _, s := range levels {
		for _, n := range scores[s] {
			if h, ok := a.nodeHandle(n); ok {
				args.Nodes = append(args.Nodes, h)
				args.Scores = append(args.Scores, s)
			}
		}
	}
	pick := int32(-1)
	if !a.ask(abi.HookBestNode, args, &pick) || pick < 0 {
		return nil
	}
	for _, h := range args.Nodes {
		if h == pick {
			return a.ssn.NodeList[h]
		}
	}
	a.failed(abi.HookBestNode, fmt.Errorf("plugin %s, hook %s: %w: picked node handle %d, not a candidate", a.name, abi.HookBestNode, ErrReply, pick))
	return nil
}

// taskHandles maps tasks to handles; false when one is not in the view.
func (a *adapter) taskHandles(tasks []*api.TaskInfo) ([]int32, bool) {
	out := make([]int32, 0, len(tasks))
	for _, t := range tasks {
		h, ok := a.handles.tasks[t.UID]
		if !ok {
			return nil, false
		}
		out = append(out, h)
	}
	return out, true
}

// chosen returns the candidates whose handles the module named, in the
// candidates' order; a handle that was not a candidate is a bad reply.
func (a *adapter) chosen(hook abi.Hook, candidates []*api.TaskInfo, handles []int32, picked []int32) ([]*api.TaskInfo, bool) {
	offered := make(map[int32]bool, len(handles))
	for _, h := range handles {
		offered[h] = true
	}
	named := make(map[int32]bool, len(picked))
	for _, h := range picked {
		if !offered[h] {
			a.failed(hook, fmt.Errorf("plugin %s, hook %s: %w: task handle %d was not a candidate", a.name, hook, ErrReply, h))
			return nil, false
		}
		named[h] = true
	}
	var out []*api.TaskInfo
	for i, t := range candidates {
		if named[handles[i]] {
			out = append(out, t)
		}
	}
	return out, true
}

func (a *adapter) victims(hook abi.Hook, task *api.TaskInfo, candidates []*api.TaskInfo) ([]*api.TaskInfo, bool) {
	t, ok := a.handles.tasks[task.UID]
	hs, all := a.taskHandles(candidates)
	if !ok || !all {
		// Protect what the module cannot see.
		return nil, !a.skipped
	}
	var v abi.Victims
	if !a.ask(hook, abi.CandidatesArgs{Task: t, Tasks: hs}, &v) {
		return nil, !a.skipped
	}
	if !v.Voted {
		return nil, false
	}
	// A reply naming a task that was not a candidate evicts nothing.
	out, _ := a.chosen(hook, candidates, hs, v.Tasks)
	return out, true
}

func (a *adapter) Preemptable(preemptor *api.TaskInfo, preemptees []*api.TaskInfo) ([]*api.TaskInfo, bool) {
	return a.victims(abi.HookPreemptable, preemptor, preemptees)
}

func (a *adapter) Reclaimable(reclaimer *api.TaskInfo, reclaimees []*api.TaskInfo) ([]*api.TaskInfo, bool) {
	return a.victims(abi.HookReclaimable, reclaimer, reclaimees)
}

// Evictable asks the module which of a gang eviction's candidates may go.
func (a *adapter) Evictable(ctx *framework.EvictionContext, candidates []*api.TaskInfo) ([]*api.TaskInfo, bool) {
	j, ok := a.handles.jobs[ctx.Job.UID]
	hs, all := a.taskHandles(candidates)
	if !ok || !all {
		// Protect what the module cannot see.
		return nil, !a.skipped
	}
	kind := abi.EvictGangPreempt
	if ctx.Kind == framework.EvictionGangReclaim {
		kind = abi.EvictGangReclaim
	}
	var v abi.Victims
	if !a.ask(abi.HookEvictable, abi.EvictableArgs{Kind: kind, Job: j, HyperNode: ctx.HyperNode, Tasks: hs}, &v) {
		return nil, !a.skipped
	}
	if !v.Voted {
		return nil, false
	}
	out, _ := a.chosen(abi.HookEvictable, candidates, hs, v.Tasks)
	return out, true
}

func (a *adapter) VictimTasks(tasks []*api.TaskInfo) []*api.TaskInfo {
	hs, ok := a.taskHandles(tasks)
	if !ok {
		return nil
	}
	var picked []int32
	if !a.ask(abi.HookVictimTasks, abi.TasksArgs{Tasks: hs}, &picked) {
		return nil
	}
	out, _ := a.chosen(abi.HookVictimTasks, tasks, hs, picked)
	return out
}

func (a *adapter) Overused(queue *api.QueueInfo) bool {
	q, ok := a.handles.queues[queue.UID]
	var over bool
	if !ok || !a.ask(abi.HookOverused, abi.QueueArgs{Queue: q}, &over) {
		return failSafe(a, true, false)
	}
	return over
}

func (a *adapter) Allocatable(queue *api.QueueInfo, task *api.TaskInfo) bool {
	q, qok := a.handles.queues[queue.UID]
	t, tok := a.handles.tasks[task.UID]
	var yes bool
	if !qok || !tok || !a.ask(abi.HookAllocatable, abi.QueueTaskArgs{Queue: q, Task: t}, &yes) {
		return failSafe(a, false, true)
	}
	return yes
}

func (a *adapter) Preemptive(queue *api.QueueInfo, tasks []*api.TaskInfo) bool {
	q, qok := a.handles.queues[queue.UID]
	hs, tok := a.taskHandles(tasks)
	var yes bool
	if !qok || !tok || !a.ask(abi.HookPreemptive, abi.QueueTasksArgs{Queue: q, Tasks: hs}, &yes) {
		return failSafe(a, false, true)
	}
	return yes
}

// jobBool asks a yes/no question about one job.
func (a *adapter) jobBool(hook abi.Hook, job *api.JobInfo, safe, neutral bool) bool {
	j, ok := a.handles.jobs[job.UID]
	var yes bool
	if !ok || !a.ask(hook, abi.JobArgs{Job: j}, &yes) {
		return failSafe(a, safe, neutral)
	}
	return yes
}

func (a *adapter) JobReady(job *api.JobInfo) bool {
	return a.jobBool(abi.HookJobReady, job, false, true)
}

func (a *adapter) JobStarving(job *api.JobInfo) bool {
	return a.jobBool(abi.HookJobStarving, job, false, true)
}

// jobVote asks for a permit/abstain/reject vote about one job.
func (a *adapter) jobVote(hook abi.Hook, job *api.JobInfo) framework.Vote {
	j, ok := a.handles.jobs[job.UID]
	var v int32
	if !ok || !a.ask(hook, abi.JobArgs{Job: j}, &v) {
		return failSafe(a, framework.Reject, framework.Abstain)
	}
	switch {
	case v > 0:
		return framework.Permit
	case v < 0:
		return framework.Reject
	}
	return framework.Abstain
}

func (a *adapter) JobPipelined(job *api.JobInfo) framework.Vote {
	return a.jobVote(abi.HookJobPipelined, job)
}

func (a *adapter) JobEnqueueable(job *api.JobInfo) framework.Vote {
	return a.jobVote(abi.HookJobEnqueueable, job)
}

func (a *adapter) JobValid(job *api.JobInfo) *framework.ValidateResult {
	j, ok := a.handles.jobs[job.UID]
	var r abi.ValidateResult
	if !ok || !a.ask(abi.HookJobValid, abi.JobArgs{Job: j}, &r) {
		if a.skipped {
			return nil
		}
		return &framework.ValidateResult{Reason: "PluginFailed", Message: fmt.Sprintf("plugin %s could not validate the job", a.name)}
	}
	if r.Pass {
		return nil
	}
	return &framework.ValidateResult{Reason: r.Reason, Message: r.Message}
}

func (a *adapter) TargetJob(jobs []*api.JobInfo) *api.JobInfo {
	hs := make([]int32, 0, len(jobs))
	for _, j := range jobs {
		h, ok := a.handles.jobs[j.UID]
		if !ok {
			return nil
		}
		hs = append(hs, h)
	}
	pick := int32(-1)
	if !a.ask(abi.HookTargetJob, abi.JobsArgs{Jobs: hs}, &pick) || pick < 0 {
		return nil
	}
	for i, h := range hs {
		if h == pick {
			return jobs[i]
		}
	}
	a.failed(abi.HookTargetJob, fmt.Errorf("plugin %s, hook %s: %w: job handle %d was not a candidate", a.name, abi.HookTargetJob, ErrReply, pick))
	return nil
}
