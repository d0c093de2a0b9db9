package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/caldera-scheduler/caldera/runtime"
	"github.com/caldera-scheduler/caldera/scheduler/simulator/randomcluster"
)

// From its second session on, a module gets only the view objects that
// changed since the view it kept (ABI 1.1 deltas). Over several sessions
// the ports decide exactly as native, and the deltas resend fewer objects
// than a whole view.
func TestViewDeltasDecideAsWholeViews(t *testing.T) {
	requirePorts(t, "binpack.tinygo", "priority.tinygo")
	dir := t.TempDir()
	conf := `actions: "enqueue, allocate, preempt, reclaim, backfill"
tiers:
- plugins: [{name: priority}, {name: gang}, {name: conformance}]
- plugins: [{name: overcommit}, {name: drf}, {name: predicates}, {name: proportion}, {name: binpack, arguments: {binpack.weight: 10}}]
`
	native := filepath.Join(dir, "native.yaml")
	ports := filepath.Join(dir, "ports.yaml")
	if err := os.WriteFile(native, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ports, withPort(withPort([]byte(conf), "binpack", "binpack.tinygo"), "priority", "priority.tinygo"), 0o644); err != nil {
		t.Fatal(err)
	}
	sent := func(kind string) float64 {
		return testutil.ToFloat64(runtime.ViewObjectsSent.WithLabelValues("binpack.tinygo", kind))
	}
	fullBefore, deltaBefore, keptBefore := sent("full"), sent("delta"), sent("unchanged")
	sessions := 0
	for seed := int64(21); seed <= 24; seed++ {
		cluster := filepath.Join(dir, fmt.Sprintf("random-%d.yaml", seed))
		if err := os.WriteFile(cluster, randomcluster.Generate(seed), 0o644); err != nil {
			t.Fatal(err)
		}
		want := runSimulate(t, "--cluster", cluster, "--scheduler-conf", native, "--cycles", "4")
		got := runSimulate(t, "--cluster", cluster, "--scheduler-conf", ports, "--plugin-dir", pluginDir, "--cycles", "4")
		if !reflect.DeepEqual(want, got) {
			t.Errorf("seed %d: decided differently over 4 sessions:\nnative %+v\nports  %+v", seed, want, got)
		}
		sessions += 4
	}
	full, delta, kept := sent("full")-fullBefore, sent("delta")-deltaBefore, sent("unchanged")-keptBefore
	t.Logf("binpack.tinygo over %d sessions: %.0f objects sent in whole lists, %.0f resent in deltas, %.0f left out", sessions, full, delta, kept)
	if kept == 0 {
		t.Error("no session opened with a delta that left an object out")
	}
}
