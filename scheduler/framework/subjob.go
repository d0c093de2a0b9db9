package framework

import (
	"fmt"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// SubJobReadyChecker says whether a sub-job has its minimum placed
// (Volcano's SubJobReadyFn); every plugin must agree.
type SubJobReadyChecker interface {
	SubJobReady(sj *api.SubJobInfo) bool
}

// SubJobPipelinedVoter votes on whether a sub-job has its minimum placed or
// promised (Volcano's SubJobPipelinedFn), as JobPipelined's votes combine.
type SubJobPipelinedVoter interface {
	SubJobPipelined(sj *api.SubJobInfo) Vote
}

// SubJobOrderer orders a job's sub-jobs (Volcano's SubJobOrderFn): negative
// when l goes first, 0 when indifferent.
type SubJobOrderer interface {
	SubJobOrder(l, r *api.SubJobInfo) int
}

// SubJobsUnseen marks a plugin whose hooks cannot see a job's sub-jobs: a
// Wasm module, whose view carries none. A job with sub-group policies is
// refused while such a plugin decides its gangs or its hypernodes, rather
// than placed by rules that ignore its sub-gangs.
type SubJobsUnseen interface {
	SubJobsUnseen()
}

// SubJobReady: for a job without sub-jobs, JobReady; otherwise every
// plugin must find the sub-job ready.
func (ssn *Session) SubJobReady(job *api.JobInfo, sj *api.SubJobInfo) bool {
	if !job.HasSubJobs() {
		return ssn.JobReady(job)
	}
	return allTrue(ssn.hooks.subJobReady, func(p SubJobReadyChecker) bool { return p.SubJobReady(sj) })
}

// SubJobPipelined: for a job without sub-jobs, JobPipelined; otherwise
// permit/abstain/reject votes on the sub-job.
func (ssn *Session) SubJobPipelined(job *api.JobInfo, sj *api.SubJobInfo) bool {
	if !job.HasSubJobs() {
		return ssn.JobPipelined(job)
	}
	return voted(ssn.hooks.subJobPipelined, func(p SubJobPipelinedVoter) Vote { return p.SubJobPipelined(sj) })
}

// SubJobOrderFn reports whether sub-job l goes before r: plugins first,
// then the match index, then the ID.
func (ssn *Session) SubJobOrderFn(l, r *api.SubJobInfo) bool {
	if c := firstNonZero(ssn.hooks.subJobOrder, func(p SubJobOrderer) int { return p.SubJobOrder(l, r) }); c != 0 {
		return c < 0
	}
	if l.MatchIndex != r.MatchIndex {
		return l.MatchIndex < r.MatchIndex
	}
	return l.UID < r.UID
}

// refuseUnseenSubJobs refuses the jobs with sub-group policies when a
// plugin that cannot see sub-jobs takes part in a hook that decides on
// them: gang validity and readiness, hypernode gradients and scores, and
// the node scores of a topology plugin (network-topology-aware scores a
// task by its sub-job's topology). Other plugins' node scores do not
// depend on sub-jobs.
func (ssn *Session) refuseUnseenSubJobs() {
	var blind []string
	for _, names := range [][]string{unseeing(ssn.hooks.jobValid, nil), unseeing(ssn.hooks.jobReady, nil),
		unseeing(ssn.hooks.jobPipelined, nil), unseeing(ssn.hooks.hyperNodeGrad, nil),
		unseeing(ssn.hooks.hyperNodeOrder, nil), unseeing(ssn.hooks.batchNodeOrder, offersHyperNodeHooks)} {
		if len(blind) == 0 {
			blind = names
		}
	}
	if len(blind) == 0 {
		return
	}
	for _, job := range ssn.JobList {
		if job.HasSubJobs() && ssn.refused[job.UID] == nil {
			ssn.refuseJob(job, "NotImplemented", fmt.Sprintf("spec.subGroupPolicy: plugin %q is a Wasm module, and the Wasm view carries no sub-groups, so the job is not scheduled; configure the native plugin for it (see README)", blind[0]))
		}
	}
}

// unseeing names the plugins of a hook that cannot see sub-jobs and, when
// only is set, pass it.
func unseeing[F any](t tiered[F], only func(any) bool) []string {
	var out []string
	for _, tier := range t {
		for _, e := range tier {
			if _, ok := any(e.fn).(SubJobsUnseen); ok && (only == nil || only(e.fn)) {
				out = append(out, e.plugin)
			}
		}
	}
	return out
}

func offersHyperNodeHooks(p any) bool {
	f, ok := p.(HookFilter)
	return !ok || f.Offers(HookHyperNodeGrad) || f.Offers(HookHyperNodeOrder)
}
