package api

import "testing"

// The histogram counts the nodes per reason, sorted as kube-scheduler's,
// and puts a task-level reason first.
func TestFitErrorsHistogram(t *testing.T) {
	fe := NewFitErrors()
	fe.SetNodeError("n1", "Insufficient cpu")
	fe.SetNodeError("n2", "Insufficient cpu")
	fe.SetNodeReason("n3", "node(s) didn't match pod anti-affinity rules")
	fe.SetNodeError("n4", "node(s) didn't match pod anti-affinity rules", "Insufficient memory")
	want := "0/4 nodes are available: 1 Insufficient memory, 2 Insufficient cpu, 2 node(s) didn't match pod anti-affinity rules."
	if got := fe.Error(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	fe.SetError("task-level")
	if got := fe.Error(); got != "task-level; "+want {
		t.Errorf("got %q, want the task-level reason first", got)
	}
	if got := NewFitErrors(); got.Error() != "0/0 nodes are available." {
		t.Errorf("empty: %q", got.Error())
	}
}
