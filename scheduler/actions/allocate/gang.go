package allocate

import "github.com/caldera-scheduler/caldera/scheduler/api"

// failedRoles returns the roles of the job's tasks that already failed to
// fit in this session.
func failedRoles(job *api.JobInfo) map[string]bool {
	roles := map[string]bool{}
	for id := range job.NodesFitErrors {
		if t, ok := job.Tasks[id]; ok {
			roles[t.TaskRole] = true
		}
	}
	return roles
}

// roleFailedBefore reports whether another task of the same role already
// failed to fit; tasks without a role are always tried.
func roleFailedBefore(job *api.JobInfo, task *api.TaskInfo) bool {
	if task.TaskRole == "" {
		return false
	}
	for id := range job.NodesFitErrors {
		if t, ok := job.Tasks[id]; ok && t.TaskRole == task.TaskRole {
			return true
		}
	}
	return false
}

// keepGoing reports whether the job can still reach its minimum after a task
// failed to fit, so that its other tasks are worth trying (Volcano's
// NeedContinueAllocating).
func keepGoing(job *api.JobInfo) bool {
	// A gang that needs every one of its tasks is lost with any of them.
	if int(job.MinAvailable) >= len(job.Tasks) {
		return false
	}
	failed := failedRoles(job)

	// With a job-wide minimum below the per-role sum, only the count matters:
	// the ready tasks plus the pending ones of roles that have not failed.
	if job.MinAvailable < job.TaskMinAvailableTotal {
		left := int32(0)
		for _, t := range job.TaskStatusIndex[api.Pending] {
			if !failed[t.TaskRole] {
				left++
			}
		}
		return job.ReadyTaskNum()+left >= job.MinAvailable
	}

	// Otherwise every failed role must already hold its own minimum.
	held := map[string]int32{}
	for status, tasks := range job.TaskStatusIndex {
		for _, t := range tasks {
			if api.AllocatedStatus(status) || status == api.Succeeded || (status == api.Pending && t.InitResreq.IsEmpty()) {
				held[t.TaskRole]++
			}
		}
	}
	for role := range failed {
		if min := job.TaskMinAvailable[role]; min != 0 && held[role] < min {
			return false
		}
	}
	return true
}
