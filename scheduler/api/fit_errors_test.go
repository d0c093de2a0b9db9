package api

import "testing"

// The histogram counts the nodes per reason, sorted as strings, after
// Volcano's head "0/N nodes are unavailable"; a task-level reason takes the
// head's place (unschedule_info.go's FitErrors.Error in Volcano).
func TestFitErrorsHistogram(t *testing.T) {
	fe := NewFitErrors()
	fe.SetNodeError("n1", "Insufficient cpu")
	fe.SetNodeError("n2", "Insufficient cpu")
	fe.SetNodeReason("n3", "node(s) didn't match pod anti-affinity rules")
	fe.SetNodeError("n4", "node(s) didn't match pod anti-affinity rules", "Insufficient memory")
	hist := "1 Insufficient memory, 2 Insufficient cpu, 2 node(s) didn't match pod anti-affinity rules."
	if got, want := fe.Error(), "0/4 nodes are unavailable: "+hist; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	fe.SetError("task-level")
	if got, want := fe.Error(), "task-level: "+hist; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := NewFitErrors().Error(); got != "0/0 nodes are unavailable" {
		t.Errorf("empty: %q", got)
	}
	alone := NewFitErrors()
	alone.SetError("Task t with role spec r has already predicated failed, skip")
	if got := alone.Error(); got != "Task t with role spec r has already predicated failed, skip" {
		t.Errorf("task-level alone: %q", got)
	}
}
