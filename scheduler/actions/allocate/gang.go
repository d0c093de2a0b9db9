package allocate

import "github.com/caldera-scheduler/caldera/scheduler/api"

// failedRoles returns the roles of the job's tasks (of sub-job sj's, when
// set) that already failed to fit in this session.
func failedRoles(job *api.JobInfo, sj *api.SubJobInfo) map[string]bool {
	roles := map[string]bool{}
	for id := range job.NodesFitErrors {
		if t, ok := job.Tasks[id]; ok && inSubJob(job, sj, id) {
			roles[t.TaskRole] = true
		}
	}
	return roles
}

func inSubJob(job *api.JobInfo, sj *api.SubJobInfo, id api.TaskID) bool {
	return sj == nil || job.TaskToSubJob[id] == sj.UID
}

// roleFailedBefore reports whether another task of the same role (in the
// same sub-job, when sj is set) already failed to fit; tasks without a
// role are always tried.
func roleFailedBefore(job *api.JobInfo, sj *api.SubJobInfo, task *api.TaskInfo) bool {
	if task.TaskRole == "" {
		return false
	}
	for id := range job.NodesFitErrors {
		if t, ok := job.Tasks[id]; ok && t.TaskRole == task.TaskRole && inSubJob(job, sj, id) {
			return true
		}
	}
	return false
}

// keepGoing reports whether the job can still reach its minimum after a task
// failed to fit, so that its other tasks are worth trying (Volcano's
// NeedContinueAllocating). In a job with sub-group policies a sub-gang that
// needs every one of its tasks is lost with any of them; otherwise the
// other tasks are tried, as Volcano does not yet weigh roles there.
func keepGoing(job *api.JobInfo, sj *api.SubJobInfo) bool {
	// A gang that needs every one of its tasks is lost with any of them.
	if int(job.MinAvailable) >= len(job.Tasks) {
		return false
	}
	if sj != nil {
		return int(sj.MinAvailable) < len(sj.Tasks)
	}
	failed := failedRoles(job, nil)

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
