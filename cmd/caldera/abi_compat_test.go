package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/caldera-scheduler/caldera/scheduler/simulator/randomcluster"
)

// buildPortAs builds an example port with the Go SDK built as another ABI
// minor (build tag caldera_abi_1_0, caldera_abi_1_2 or caldera_abi_next)
// into dir/file.
func buildPortAs(t *testing.T, port, tag, dir, file string) {
	t.Helper()
	if err := buildWasm(filepath.Join("..", "..", "examples", "plugins", port, "go"), filepath.Join(dir, file), tag); err != nil {
		t.Fatalf("-tags %s: %v", tag, err)
	}
}

// Minor versions only add: modules built for earlier minors (1.0, 1.2) and
// one built for the next (1.13, declaring a hook this scheduler does not
// know) all load and decide exactly as the native plugins, over sessions
// that follow one another. The 1.0 module would fail on 1.1's enqueue
// event, so this also proves the scheduler sends a module only what its
// minor knows; the 1.2 module does not undo its events (1.3), so its
// deltas must resend what they changed.
func TestModulesOfOtherMinorsKeepWorking(t *testing.T) {
	dir := t.TempDir()
	buildPortAs(t, "binpack", "caldera_abi_1_0", dir, "binpack.abi10.wasm")
	buildPortAs(t, "drf", "caldera_abi_1_2", dir, "drf.abi12.wasm")
	buildPortAs(t, "priority", "caldera_abi_next", dir, "priority.abinext.wasm")
	for name, abi := range map[string]string{"binpack.abi10": "1.0", "drf.abi12": "1.2", "priority.abinext": "1.13"} {
		out, err := runCaldera("plugin", "inspect", filepath.Join(dir, name+".wasm"))
		if err != nil || !strings.Contains(out, abi) {
			t.Errorf("inspect %s: %v, want ABI %s in\n%s", name, err, abi, out)
		}
	}
	conf := `actions: "enqueue, allocate, preempt, reclaim, backfill"
tiers:
- plugins: [{name: priority}, {name: gang}, {name: conformance}]
- plugins: [{name: overcommit}, {name: drf}, {name: predicates}, {name: proportion}, {name: binpack, arguments: {binpack.weight: 10}}]
`
	for seed := int64(11); seed <= 14; seed++ {
		cluster := filepath.Join(dir, fmt.Sprintf("random-%d.yaml", seed))
		if err := os.WriteFile(cluster, randomcluster.Generate(seed), 0o644); err != nil {
			t.Fatal(err)
		}
		native := filepath.Join(dir, "native.yaml")
		if err := os.WriteFile(native, []byte(conf), 0o644); err != nil {
			t.Fatal(err)
		}
		want := runSimulate(t, "--cluster", cluster, "--scheduler-conf", native, "--plugin-dir", dir, "--cycles", "3")
		mixed := withPort(withPort(withPort([]byte(conf), "binpack", "binpack.abi10"), "drf", "drf.abi12"), "priority", "priority.abinext")
		path := filepath.Join(dir, "mixed.yaml")
		if err := os.WriteFile(path, mixed, 0o644); err != nil {
			t.Fatal(err)
		}
		got := runSimulate(t, "--cluster", cluster, "--scheduler-conf", path, "--plugin-dir", dir, "--cycles", "3")
		if !reflect.DeepEqual(want, got) {
			t.Errorf("seed %d: modules of ABI 1.0, 1.2 and 1.4 decided differently:\nnative %+v\nmixed  %+v", seed, want, got)
		}
	}
}
