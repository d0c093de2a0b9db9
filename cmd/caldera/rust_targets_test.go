package main

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tetratelabs/wazero"

	schedconf "github.com/caldera-scheduler/caldera/scheduler/conf"
)

// A Rust module built for wasm32-unknown-unknown imports caldera.log alone
// (the SDK reports panics through it); one built for wasm32-wasi imports a
// few WASI functions too (the sandbox grants them) and, built by Rust 1.63,
// exports no _initialize. Both load, serve a
// session, and decide exactly as the native plugin they port.
func TestRustTargetsLoadAndDecideAsNative(t *testing.T) {
	dir := t.TempDir()
	for _, target := range []string{"wasm32-unknown-unknown", "wasm32-wasi"} {
		src := buildRustWasm(t, "../../examples/plugins/priority/rust", target)
		bin, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		var wasi, other []string
		for _, name := range importsOf(t, bin) {
			if filepath.Dir(name) == "wasi_snapshot_preview1" {
				wasi = append(wasi, name)
			} else {
				other = append(other, name)
			}
		}
		switch {
		case !reflect.DeepEqual(other, []string{"caldera/log"}):
			t.Errorf("%s module imports %v beyond WASI, want caldera/log alone", target, other)
		case target == "wasm32-unknown-unknown" && len(wasi) > 0:
			t.Errorf("wasm32-unknown-unknown module imports %v", wasi)
		case target == "wasm32-wasi" && len(wasi) == 0:
			t.Errorf("wasm32-wasi module imports no WASI function: is it built for WASI?")
		}
		t.Logf("%s: %d bytes, imports %v", target, len(bin), wasi)
		if err := os.WriteFile(filepath.Join(dir, "priority."+target+".wasm"), bin, 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := runCaldera("plugin", "validate", filepath.Join(dir, "priority."+target+".wasm")); err != nil {
			t.Errorf("validate %s: %v\n%s", target, err, out)
		}
	}
	for _, sc := range []string{"volcano/preempt-one-task-other-job", "caldera/alloc-priorityclass-job-order"} {
		sc = filepath.Join("../../testdata/scenarios", sc)
		conf, err := os.ReadFile(filepath.Join(sc, "scheduler.yaml"))
		if os.IsNotExist(err) {
			conf, err = schedconf.DefaultYAML(), nil
		}
		if err != nil {
			t.Fatal(err)
		}
		native := filepath.Join(dir, "native.yaml")
		if err := os.WriteFile(native, conf, 0o644); err != nil {
			t.Fatal(err)
		}
		cluster := filepath.Join(sc, "cluster.yaml")
		want := runSimulate(t, "--cluster", cluster, "--scheduler-conf", native)
		for _, target := range []string{"wasm32-unknown-unknown", "wasm32-wasi"} {
			path := filepath.Join(t.TempDir(), "scheduler.yaml")
			if err := os.WriteFile(path, withPort(conf, "priority", "priority."+target), 0o644); err != nil {
				t.Fatal(err)
			}
			got := runSimulate(t, "--cluster", cluster, "--scheduler-conf", path, "--plugin-dir", dir)
			if !reflect.DeepEqual(want, got) {
				t.Errorf("%s with the %s priority module decided differently:\nnative %+v\nmodule %+v", filepath.Base(sc), target, want, got)
			}
		}
	}
}

// importsOf lists a module's imported functions as module/name.
func importsOf(t *testing.T, bin []byte) []string {
	t.Helper()
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	compiled, err := rt.CompileModule(ctx, bin)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range compiled.ImportedFunctions() {
		module, name, _ := f.Import()
		out = append(out, module+"/"+name)
	}
	return out
}
