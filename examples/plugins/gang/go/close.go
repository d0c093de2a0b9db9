package main

import (
	"sort"
	"strconv"
	"strings"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

// PodGroup condition types and reasons, as Volcano words them.
const (
	conditionScheduled     = "Scheduled"
	conditionUnschedulable = "Unschedulable"
	notEnoughResources     = "NotEnoughResources"
	readyReason            = "tasks in gang are ready to be scheduled"
)

// OnSessionClose tells users, through PodGroup conditions, which gangs could
// not be placed and why. It runs once per session: it may allocate.
func (g *gang) OnSessionClose(s *caldera.Session) {
	for i := range s.View.Jobs {
		j := &s.View.Jobs[i]
		if len(j.Tasks) == 0 {
			continue
		}
		if isReady(j) {
			s.SetCondition(j, conditionScheduled, "True", readyReason, "")
			continue
		}
		if shortOnlyByReleasing(j) {
			continue
		}
		unready := j.MinAvailable - g.schedulableTaskNum(j)
		msg := strconv.Itoa(int(unready)) + "/" + strconv.Itoa(len(j.Tasks)) + " tasks in gang unschedulable: " + g.fitError(j) + originReason(s, j)
		s.SetCondition(j, conditionUnschedulable, "True", notEnoughResources, msg)
	}
}

// schedulableTaskNum counts the tasks that hold resources plus the pending
// ones that a discarded statement had allocated: those could be placed, but
// not enough of them together.
func (g *gang) schedulableTaskNum(j *caldera.Job) int32 {
	n := int32(0)
	for _, t := range j.Tasks {
		switch {
		case readyStatus(t.Status):
			n++
		case g.discardedAllocation(t):
			n++
		}
	}
	return n
}

// discardedAllocation reports a pending task that a discarded statement
// had last allocated: it could be placed, but not with enough of its gang
// (Volcano's Schedulable).
func (g *gang) discardedAllocation(t *caldera.Task) bool {
	return t.Status == caldera.Pending && g.discarded[t.Handle] && allocatedStatus(g.placed[t.Handle])
}

// shortOnlyByReleasing reports a job that is not ready only because some of
// its placed pods are being deleted: with nothing pending or pipelined and
// enough pods still on nodes, there is nothing to schedule and nothing to
// flag.
func shortOnlyByReleasing(j *caldera.Job) bool {
	var releasing, scheduled int32
	for _, t := range j.Tasks {
		switch {
		case t.Status == caldera.Pending || t.Status == caldera.Pipelined:
			return false
		case t.Status == caldera.Releasing && t.Node >= 0:
			releasing++
		case scheduledStatus(t.Status):
			scheduled++
		}
	}
	return releasing > 0 && scheduled+releasing >= j.MinAvailable
}

// taskStatuses are the names a task status may have, as the scheduler
// prints them.
var taskStatuses = [...]string{
	caldera.Pending, caldera.Allocated, caldera.Pipelined, caldera.Binding, caldera.Bound,
	caldera.Running, caldera.Releasing, caldera.Succeeded, caldera.Failed, caldera.Unknown,
}

// fitError is api.JobInfo.FitError for a job that is not ready:
// "pod group is not ready, 2 Pending, 2 minAvailable; Pending: 1
// Schedulable, 1 Unschedulable". A pending task is Schedulable when a
// discarded statement had last allocated it (Volcano's
// TaskSchedulingReason), Unschedulable otherwise.
func (g *gang) fitError(j *caldera.Job) string {
	var n [len(taskStatuses)]int
	for _, t := range j.Tasks {
		k := len(taskStatuses) - 1 // a status the scheduler does not name prints as Unknown
		for i, name := range taskStatuses {
			if t.Status == name {
				k = i
				break
			}
		}
		n[k]++
	}
	parts := []string{strconv.Itoa(int(j.MinAvailable)) + " minAvailable"}
	for i, name := range taskStatuses {
		if n[i] > 0 {
			parts = append(parts, strconv.Itoa(n[i])+" "+name)
		}
	}
	sort.Strings(parts)
	msg := "pod group is not ready, " + strings.Join(parts, ", ")
	if n[0] > 0 {
		schedulable := 0
		for _, t := range j.Tasks {
			if g.discardedAllocation(t) {
				schedulable++
			}
		}
		var reasons []string
		if schedulable > 0 {
			reasons = append(reasons, strconv.Itoa(schedulable)+" Schedulable")
		}
		if rest := n[0] - schedulable; rest > 0 {
			reasons = append(reasons, strconv.Itoa(rest)+" Unschedulable")
		}
		sort.Strings(reasons) // "10 Schedulable" before "2 Unschedulable", as Volcano sorts them
		msg += "; Pending: " + strings.Join(reasons, ", ")
	}
	return msg
}

// originReason is the end of Volcano's gang message that quotes a task's
// fit error: ". Origin reason is <pod>: <fit error>", for the first task by
// pod name that has one (the scheduler's own choice, as Volcano's map
// order is no choice at all), or "" when none has.
func originReason(s *caldera.Session, j *caldera.Job) string {
	var origin *caldera.Task
	var msg string
	for _, t := range j.Tasks {
		if fe := s.FitError(t); fe != "" && (origin == nil || t.Name < origin.Name) {
			origin, msg = t, fe
		}
	}
	if origin == nil {
		return ""
	}
	return ". Origin reason is " + origin.Name + ": " + msg
}
