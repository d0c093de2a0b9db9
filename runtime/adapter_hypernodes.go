package runtime

import (
	"fmt"

	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// The hypernode hooks (1.9): allocate's and gang eviction's search of a
// job with a network topology. Hypernodes cross by handle, their index in
// View.hyperNodes.

var (
	_ framework.HyperNodeScorer     = &adapter{}
	_ framework.HyperNodeGradienter = &adapter{}
	_ framework.SubJobsUnseen       = &adapter{}
)

// SubJobsUnseen: the view (ABI 1.10) carries no sub-groups, so the session
// keeps jobs with sub-group policies away from a module's hooks.
func (a *adapter) SubJobsUnseen() {}

func errSubJobsUnseen(plugin string, job *api.JobInfo) error {
	return fmt.Errorf("plugin %s: job %s has sub-group policies, which the Wasm view does not carry", plugin, job.Key())
}

// HyperNodeOrder asks the module to score the candidate hypernodes, one
// score per candidate in their order. A failed call scores nothing and
// reports the failure, as a failed node_order_batch does; an ignorable
// plugin that stopped taking part scores nothing.
func (a *adapter) HyperNodeOrder(job *api.JobInfo, sj *api.SubJobInfo, hyperNodes []*api.HyperNodeInfo) (map[string]float64, error) {
	if a.skipped {
		return nil, nil
	}
	if sj != nil {
		return nil, errSubJobsUnseen(a.name, job)
	}
	j, ok := a.handles.jobs[job.UID]
	if !ok {
		return nil, fmt.Errorf("plugin %s: job %s is not in the session view", a.name, job.Key())
	}
	hs := make([]int32, len(hyperNodes))
	for i, hn := range hyperNodes {
		if hs[i] = a.handles.hyperNodeIndex(hn.Name); hs[i] < 0 {
			return nil, fmt.Errorf("plugin %s: hypernode %s is not in the session view", a.name, hn.Name)
		}
	}
	var scores []float64
	args := abi.HyperNodeOrderArgs{Job: j, Allocated: a.handles.hyperNodeIndex(job.AllocatedHyperNode), HyperNodes: hs}
	if err := a.call(abi.HookHyperNodeOrder, args, &scores); err != nil {
		return nil, a.hyperNodeScoringFailed(err)
	}
	if len(scores) != len(hs) {
		return nil, a.hyperNodeScoringFailed(a.unusable(abi.HookHyperNodeOrder, fmt.Sprintf("%d scores for %d hypernodes", len(scores), len(hs))))
	}
	out := make(map[string]float64, len(hyperNodes))
	for i, hn := range hyperNodes {
		out[hn.Name] += scores[i]
	}
	return out, nil
}

func (a *adapter) hyperNodeScoringFailed(err error) error {
	a.failed(abi.HookHyperNodeOrder, err)
	if a.policy.Ignorable {
		return nil
	}
	return err
}

// HyperNodeGradient asks the module for the job's gradients within a
// hypernode. A failed call, or a reply naming a hypernode outside the
// view, offers no hypernode: the job is not placed (or no victim is
// sought) by topology this time. An ignorable plugin that stopped taking
// part offers the hypernode searched within, as a session without the
// hook does.
func (a *adapter) HyperNodeGradient(job *api.JobInfo, sj *api.SubJobInfo, within *api.HyperNodeInfo, scope framework.GradientScope, purpose framework.SearchPurpose) [][]*api.HyperNodeInfo {
	neutral := [][]*api.HyperNodeInfo{{within}}
	if sj != nil {
		// The session refuses such jobs (refuseUnseenSubJobs); offering
		// nothing keeps one that got here unplaced rather than misplaced.
		return nil
	}
	j, ok := a.handles.jobs[job.UID]
	if !ok || a.skipped {
		return failSafe(a, nil, neutral)
	}
	args := abi.HyperNodeGradientArgs{Job: j, Within: -1, Scope: abi.GradientScopeJob, Purpose: abi.PurposeAllocate,
		Allocated: a.handles.hyperNodeIndex(job.AllocatedHyperNode)}
	if within != nil {
		if args.Within = a.handles.hyperNodeIndex(within.Name); args.Within < 0 {
			return failSafe(a, nil, neutral)
		}
	}
	if scope == framework.ScopeTasks {
		args.Scope = abi.GradientScopeTasks
	}
	if purpose == framework.PurposeEvict {
		args.Purpose = abi.PurposeEvict
	}
	var groups [][]int32
	if !a.ask(abi.HookHyperNodeGradient, args, &groups) {
		return failSafe(a, nil, neutral)
	}
	list := a.handles.hyperNodeList
	out := make([][]*api.HyperNodeInfo, 0, len(groups))
	for _, g := range groups {
		group := make([]*api.HyperNodeInfo, 0, len(g))
		for _, h := range g {
			if h < 0 || int(h) >= len(list) {
				a.failed(abi.HookHyperNodeGradient, a.unusable(abi.HookHyperNodeGradient, fmt.Sprintf("hypernode handle %d of %d", h, len(list))))
				return failSafe(a, nil, neutral)
			}
			group = append(group, list[h])
		}
		out = append(out, group)
	}
	return out
}
