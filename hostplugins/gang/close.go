package gang

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// readyReason is the reason of the Scheduled condition, worded as Volcano's.
const readyReason = "tasks in gang are ready to be scheduled"

// OnSessionClose tells users, through PodGroup conditions, which gangs could
// not be placed and why.
func (p *Plugin) OnSessionClose(ssn *framework.Session) {
	for _, job := range ssn.JobList {
		if len(job.Tasks) == 0 {
			continue
		}
		if job.IsReady() {
			ssn.UpdatePodGroupCondition(job, ssn.NewCondition(v1beta1.PodGroupScheduled, v1.ConditionTrue, readyReason, ""))
			continue
		}
		if shortOnlyByReleasing(job) {
			continue
		}
		unready := job.MinAvailable - p.schedulableTaskNum(job)
		msg := fmt.Sprintf("%v/%v tasks in gang unschedulable: %v", unready, len(job.Tasks), job.FitError())
		ssn.UpdatePodGroupCondition(job, ssn.NewCondition(v1beta1.PodGroupUnschedulableType, v1.ConditionTrue, v1beta1.NotEnoughResourcesReason, msg))
	}
}

// schedulableTaskNum counts the tasks that hold resources plus the pending
// ones that a discarded statement had allocated: those could be placed, but
// not enough of them together.
func (p *Plugin) schedulableTaskNum(job *api.JobInfo) int32 {
	n := job.ReadyTaskNum()
	for id := range job.TaskStatusIndex[api.Pending] {
		if p.discarded[id] && api.AllocatedStatus(p.placedStatus[id]) {
			n++
		}
	}
	return n
}

// shortOnlyByReleasing reports a job that is not ready only because some of
// its placed pods are being deleted: with nothing pending or pipelined and
// enough pods still on nodes, there is nothing to schedule and nothing to
// flag.
func shortOnlyByReleasing(job *api.JobInfo) bool {
	releasing := job.ReleasingScheduledTaskNum()
	if releasing == 0 {
		return false
	}
	if len(job.TaskStatusIndex[api.Pending]) > 0 || len(job.TaskStatusIndex[api.Pipelined]) > 0 {
		return false
	}
	return job.ScheduledTaskNum()+releasing >= job.MinAvailable
}
