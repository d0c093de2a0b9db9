package main

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/caldera-scheduler/caldera/scheduler/simulator/randomcluster"
)

// Every run of the same cluster and configuration decides the same way:
// binds, evictions, PodGroup phases and reasons. Map iteration order and
// the order in which informers deliver objects must not leak into
// decisions.
func TestSimulateIsReproducible(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full.yaml")
	if err := os.WriteFile(full, []byte(`actions: "enqueue, allocate, preempt, reclaim, backfill"
tiers:
- plugins: [{name: priority}, {name: gang}, {name: conformance}]
- plugins: [{name: overcommit}, {name: drf}, {name: predicates}, {name: proportion}, {name: nodeorder}, {name: binpack}]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	for seed := int64(1); seed <= 6; seed++ {
		cluster := filepath.Join(dir, "cluster.yaml")
		if err := os.WriteFile(cluster, randomcluster.Generate(seed), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, extra := range [][]string{nil, {"--scheduler-conf", full}} {
			args := append([]string{"--cluster", cluster}, extra...)
			first := runSimulate(t, args...)
			if len(first.Binds) == 0 {
				t.Fatalf("seed %d %v: nothing bound; the generator should make schedulable clusters", seed, extra)
			}
			for run := 2; run <= 3; run++ {
				if again := runSimulate(t, args...); !reflect.DeepEqual(first, again) {
					t.Fatalf("seed %d %v: run %d decided differently:\nfirst %+v\nagain %+v", seed, extra, run, first, again)
				}
			}
		}
	}
}
