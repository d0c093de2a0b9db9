package main

import (
	"strings"
	"testing"
)

// The table says where each job's pods went and, for pending pods, groups
// the members of a job that share a reason on one line, as a gang's do.
func TestSimulateTableGroupsAndPlaces(t *testing.T) {
	out, err := runCaldera("simulate", "--wasm-cache-dir", "", "--cluster", "../../examples/clusters/training-cluster.yaml")
	if err != nil {
		t.Fatalf("simulate: %v\n%s", err, out)
	}
	for _, want := range []string{
		"\nNodes of bound pods:\n",
		"  ml/recsys-train: gpu-05 ×2, gpu-06 ×2\n",
		"  ml/oversized-gang: 39 pods (ml/oversized-gang-worker-1, ml/oversized-gang-worker-2, … ml/oversized-gang-worker-39): pod group is not ready",
		"  ml/oversized-gang-worker-0: 0/20 nodes are unavailable",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "oversized-gang-worker-5"); n != 0 {
		t.Errorf("a grouped pod is listed on its own (%d times)", n)
	}
}

func TestPendingLinesGroupByReason(t *testing.T) {
	got := pendingLines("ns/j", []string{"ns/a", "ns/b", "ns/c"}, map[string]string{"ns/a": "x", "ns/b": "y", "ns/c": "y"})
	want := []string{"  ns/a: x", "  ns/j: 2 pods (ns/b, ns/c): y"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("pendingLines = %q, want %q", got, want)
	}
	if got := nodeCounts(map[string]int{"n2": 1, "n1": 3}); got != "n1 ×3, n2" {
		t.Errorf("nodeCounts = %q", got)
	}
}
