package api

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// TestTaskSchedulingReasons: as Volcano's scheduler words a pod it did not
// bind. A pod a discarded statement had allocated is Schedulable on its
// node; one pipelined where victims were evicted for it is nominated
// there; a pending one carries its nodes' fit errors. The gang's fit error
// counts the pending pods per reason.
func TestTaskSchedulingReasons(t *testing.T) {
	job := NewJobInfo("ns/pg")
	job.MinAvailable = 3
	add := func(name string) *TaskInfo {
		task := NewTaskInfo(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(name)}})
		job.AddTaskInfo(task)
		return task
	}
	fits, fails, waits := add("fits"), add("fails"), add("waits")

	fits.Status, fits.NodeName = Allocated, "n1"
	fits.RememberTransaction() // its statement is discarded
	fits.Status, fits.NodeName = Pending, ""
	fe := NewFitErrors()
	fe.SetNodeError("n2", "Insufficient cpu")
	job.NodesFitErrors = map[TaskID]*FitErrors{fails.UID: fe}
	job.UpdateTaskStatus(waits, Pipelined)
	waits.NodeName, waits.EvictionOccurred = "n3", true

	for _, c := range []struct {
		task                   *TaskInfo
		reason, msg, nominated string
	}{
		{fits, PodReasonSchedulable, "Pod ns/fits can possibly be assigned to n1, once minAvailable is satisfied", ""},
		{fails, PodReasonUnschedulable, "0/1 nodes are unavailable: 1 Insufficient cpu.", ""},
		{waits, PodReasonUnschedulable, "Pod ns/waits can possibly be assigned to n3, once resource is released and minAvailable is satisfied", "n3"},
	} {
		reason, msg, nominated := job.TaskSchedulingReason(c.task.UID)
		if reason != c.reason || msg != c.msg || nominated != c.nominated {
			t.Errorf("%s: (%q, %q, %q), want (%q, %q, %q)", c.task.Name, reason, msg, nominated, c.reason, c.msg, c.nominated)
		}
	}
	if got, want := job.FitError(), "pod group is not ready, 1 Pipelined, 2 Pending, 3 minAvailable; Pending: 1 Schedulable, 1 Unschedulable. Origin reason is fails: 0/1 nodes are unavailable: 1 Insufficient cpu."; got != want {
		t.Errorf("fit error %q, want %q", got, want)
	}
	// Of two tasks with fit errors, the message quotes the first by name.
	other := NewFitErrors()
	other.SetNodeError("n2", "Insufficient memory")
	job.NodesFitErrors[fits.UID] = other
	if got, want := job.FitError(), "pod group is not ready, 1 Pipelined, 2 Pending, 3 minAvailable; Pending: 1 Schedulable, 1 Unschedulable. Origin reason is fails: 0/1 nodes are unavailable: 1 Insufficient cpu."; got != want {
		t.Errorf("fit error %q, want %q", got, want)
	}
	delete(job.NodesFitErrors, fits.UID)
	// A job-wide reason is quoted instead.
	job.JobFitErrors = "queue overused"
	if got, want := job.FitError(), "pod group is not ready, 1 Pipelined, 2 Pending, 3 minAvailable; Pending: 1 Schedulable, 1 Unschedulable. Origin reason is: queue overused"; got != want {
		t.Errorf("fit error %q, want %q", got, want)
	}
	job.JobFitErrors = ""

	// A committed statement forgets what a discarded one had done.
	fits.ForgetTransaction()
	if reason, _, _ := job.TaskSchedulingReason(fits.UID); reason != PodReasonUnschedulable {
		t.Errorf("after a commit the pod reads %s, want Unschedulable", reason)
	}
}
