package main

import caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"

// The job arithmetic of the scheduler's api.JobInfo, counted over the view's
// tasks: how many hold resources, wait for them, or still take part.

// allocatedStatus: the task holds node resources on behalf of its job.
func allocatedStatus(s string) bool {
	switch s {
	case caldera.Bound, caldera.Binding, caldera.Running, caldera.Allocated:
		return true
	}
	return false
}

// readyStatus: the task holds or held resources (ReadyTaskNum's statuses).
func readyStatus(s string) bool { return allocatedStatus(s) || s == caldera.Succeeded }

// scheduledStatus: placed for good (bound, running or finished).
func scheduledStatus(s string) bool {
	switch s {
	case caldera.Running, caldera.Bound, caldera.Failed, caldera.Succeeded:
		return true
	}
	return false
}

// counts are a job's tasks by what their statuses mean for a gang.
type counts struct {
	ready, waiting, pendingBestEffort, valid, pending int32
}

func countTasks(j *caldera.Job) counts {
	var c counts
	for _, t := range j.Tasks {
		switch s := t.Status; {
		case readyStatus(s):
			c.ready++
			c.valid++
		case s == caldera.Pipelined:
			c.waiting++
			c.valid++
		case s == caldera.Pending:
			c.pending++
			c.valid++
			if t.BestEffort {
				c.pendingBestEffort++
			}
		}
	}
	return c
}

func readyTaskNum(j *caldera.Job) int32 { return countTasks(j).ready }

// isReady: enough tasks hold resources to satisfy minAvailable.
func isReady(j *caldera.Job) bool {
	c := countTasks(j)
	return c.ready+c.pendingBestEffort >= j.MinAvailable
}

// Which tasks count towards a role's minimum.
const (
	roleValid     = iota // holding, waiting for, or asking for resources
	roleReady            // holding resources (or finished), or pending best-effort
	rolePipelined        // holding or waiting for them, or pending best-effort
)

// rolesMeet reports whether every role of spec.minTaskMember has its
// minimum of tasks counted by mode. Per-role minimums bind only when
// minAvailable is at least their sum; otherwise minAvailable alone decides.
func rolesMeet(j *caldera.Job, mode int) bool {
	total := int32(0)
	for _, n := range j.MinTaskMember {
		total += n
	}
	if j.MinAvailable < total {
		return true
	}
	for role, least := range j.MinTaskMember {
		n := int32(0)
		for _, t := range j.Tasks {
			if t.Role == role && roleCounts(t, mode) {
				n++
			}
		}
		if n < least {
			return false
		}
	}
	return true
}

func roleCounts(t *caldera.Task, mode int) bool {
	s := t.Status
	switch mode {
	case roleValid:
		return readyStatus(s) || s == caldera.Pipelined || s == caldera.Pending
	case roleReady:
		return readyStatus(s) || (s == caldera.Pending && isEmpty(&t.InitRequest))
	default:
		return readyStatus(s) || s == caldera.Pipelined || (s == caldera.Pending && isEmpty(&t.InitRequest))
	}
}

// isEmpty is api.Resource.IsEmpty on whole quantities: every dimension but
// "pods" is below the scheduler's 0.1 tolerance, that is at most 0.
func isEmpty(r *caldera.Resource) bool {
	if r.MilliCPU >= 1 || r.Memory >= 1 {
		return false
	}
	for _, sc := range r.Scalars {
		if sc.Name != "pods" && sc.Value >= 1 {
			return false
		}
	}
	return true
}
