package gang

import (
	"fmt"

	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Name is the plugin's name in the scheduler configuration.
const Name = "gang"

// Plugin enforces gang minimums.
type Plugin struct {
	ssn *framework.Session
	// placedStatus is the status each task was last placed with this session,
	// and discarded whether that placement was then undone; together they
	// tell which pending tasks a discarded statement had allocated.
	placedStatus map[api.TaskID]api.TaskStatus
	discarded    map[api.TaskID]bool
}

var (
	_ framework.JobValidator         = &Plugin{}
	_ framework.JobReadyChecker      = &Plugin{}
	_ framework.JobPipelinedVoter    = &Plugin{}
	_ framework.JobStarvingChecker   = &Plugin{}
	_ framework.PreemptableFilter    = &Plugin{}
	_ framework.ReclaimableFilter    = &Plugin{}
	_ framework.EvictableFilter      = &Plugin{}
	_ framework.JobOrderer           = &Plugin{}
	_ framework.SubJobReadyChecker   = &Plugin{}
	_ framework.SubJobPipelinedVoter = &Plugin{}
	_ framework.SubJobOrderer        = &Plugin{}
	_ framework.EventHandler         = &Plugin{}
)

// New makes the plugin. It has no arguments.
func New(framework.Arguments) (framework.Plugin, error) {
	return &Plugin{placedStatus: map[api.TaskID]api.TaskStatus{}, discarded: map[api.TaskID]bool{}}, nil
}

// Name returns "gang".
func (p *Plugin) Name() string { return Name }

// OnSessionOpen remembers the session.
func (p *Plugin) OnSessionOpen(ssn *framework.Session) { p.ssn = ssn }

// JobValid rejects jobs that can no longer reach their minimums.
func (p *Plugin) JobValid(job *api.JobInfo) *framework.ValidateResult {
	if !job.CheckTaskValid() {
		return &framework.ValidateResult{
			Reason:  v1beta1.NotEnoughPodsOfTaskReason,
			Message: "Not enough valid pods of each task for gang-scheduling",
		}
	}
	if !job.CheckSubJobValid() {
		return &framework.ValidateResult{
			Reason:  v1beta1.NotEnoughPodsOfTaskReason,
			Message: "Not enough valid subGroups of each task for gang-scheduling",
		}
	}
	if valid := job.ValidTaskNum(); valid < job.MinAvailable {
		return &framework.ValidateResult{
			Reason:  v1beta1.NotEnoughPodsReason,
			Message: fmt.Sprintf("Not enough valid tasks for gang-scheduling, valid: %d, min: %d", valid, job.MinAvailable),
		}
	}
	return nil
}

// JobReady: every role, every sub-group policy (minSubGroups sub-jobs
// ready) and the job as a whole have their minimum placed.
func (p *Plugin) JobReady(job *api.JobInfo) bool {
	return job.CheckTaskReady() && job.CheckSubJobReady() && job.IsReady()
}

// JobPipelined permits a job whose minimums are placed or promised.
func (p *Plugin) JobPipelined(job *api.JobInfo) framework.Vote {
	if job.CheckTaskPipelined() && job.CheckSubJobPipelined() && job.IsPipelined() {
		return framework.Permit
	}
	return framework.Reject
}

// SubJobReady: the sub-gang has subGroupSize tasks placed.
func (p *Plugin) SubJobReady(sj *api.SubJobInfo) bool { return sj.IsReady() }

// SubJobPipelined permits a sub-gang whose size is placed or promised.
func (p *Plugin) SubJobPipelined(sj *api.SubJobInfo) framework.Vote {
	if sj.IsPipelined() {
		return framework.Permit
	}
	return framework.Reject
}

// SubJobOrder puts sub-jobs that are not ready before ready ones.
func (p *Plugin) SubJobOrder(l, r *api.SubJobInfo) int {
	return readyLast(l.IsReady(), r.IsReady())
}

// JobStarving: the job has fewer tasks placed or promised than minAvailable.
func (p *Plugin) JobStarving(job *api.JobInfo) bool { return job.IsStarving() }

// JobOrder puts jobs that are not ready before ready ones.
func (p *Plugin) JobOrder(l, r *api.JobInfo) int {
	return readyLast(l.IsReady(), r.IsReady())
}

func readyLast(lr, rr bool) int {
	switch {
	case lr == rr:
		return 0
	case lr:
		return 1
	}
	return -1
}

// Preemptable keeps, job by job and in the given order, the candidates that
// leave their job with at least minAvailable ready tasks.
func (p *Plugin) Preemptable(_ *api.TaskInfo, preemptees []*api.TaskInfo) ([]*api.TaskInfo, bool) {
	return p.aboveMinimum(preemptees), true
}

// Reclaimable follows the same rule as Preemptable.
func (p *Plugin) Reclaimable(_ *api.TaskInfo, reclaimees []*api.TaskInfo) ([]*api.TaskInfo, bool) {
	return p.aboveMinimum(reclaimees), true
}

// Evictable allows every gang eviction candidate: gangpreempt and
// gangreclaim keep minAvailable themselves, by evicting a job's tasks
// beyond it as a safe bundle and the rest only as the whole job.
func (p *Plugin) Evictable(_ *framework.EvictionContext, candidates []*api.TaskInfo) ([]*api.TaskInfo, bool) {
	return candidates, true
}

func (p *Plugin) aboveMinimum(candidates []*api.TaskInfo) []*api.TaskInfo {
	var victims []*api.TaskInfo
	ready := map[api.JobID]int32{}
	for _, t := range candidates {
		job := p.ssn.Jobs[t.Job]
		if job == nil {
			continue
		}
		n, seen := ready[job.UID]
		if !seen {
			n = job.ReadyTaskNum()
		}
		if n > job.MinAvailable {
			n--
			victims = append(victims, t)
		}
		ready[job.UID] = n
	}
	return victims
}

// OnAllocate remembers how a task was placed.
func (p *Plugin) OnAllocate(task *api.TaskInfo) {
	p.placedStatus[task.UID] = task.Status
	delete(p.discarded, task.UID)
}

// OnDeallocate notes a placement undone. An eviction also calls it, with the
// task releasing rather than pending; the task then no longer counts as
// pending anyway.
func (p *Plugin) OnDeallocate(task *api.TaskInfo) {
	if task.Status == api.Pending {
		p.discarded[task.UID] = true
	}
}
