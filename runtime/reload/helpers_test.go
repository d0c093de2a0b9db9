package reload

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/caldera-scheduler/caldera/hostplugins"
	"github.com/caldera-scheduler/caldera/scheduler/actions"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// builtPlugins is where `make plugins` puts the example modules.
const builtPlugins = "../../build/plugins"

// module returns the bytes of build/plugins/<name>.wasm. A module that is
// not built skips the test, unless CALDERA_REQUIRE_PLUGINS is set (make
// test-all sets it), in which case it fails.
func moduleBytes(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(builtPlugins, name+".wasm"))
	if err != nil {
		if os.Getenv("CALDERA_REQUIRE_PLUGINS") != "" {
			t.Fatalf("%s.wasm is missing (make plugins builds it): %v", name, err)
		}
		t.Skipf("%s.wasm is not built; run make plugins", name)
	}
	return b
}

// confNaming is a configuration whose second tier ends with the given
// plugins.
func confNaming(plugins ...string) string {
	var b strings.Builder
	b.WriteString("actions: \"enqueue, allocate\"\ntiers:\n- plugins: [{name: priority}, {name: gang}]\n- plugins: [{name: predicates}, {name: nodeorder}")
	for _, p := range plugins {
		b.WriteString(", {name: " + p + "}")
	}
	b.WriteString("]\n")
	return b.String()
}

// writeFile replaces a file the way editors and kubectl cp do not: in
// place. Watch must cope with that as well as with renames.
func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// newTestReloader loads conf and the modules of dir, with a compilation
// cache in a temporary directory, and closes the reloader at the end of
// the test. with changes the options first.
func newTestReloader(t testing.TB, dir string, report func(Outcome), with ...func(*Options)) *Reloader {
	t.Helper()
	cache, err := wazero.NewCompilationCacheWithDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{
		ConfigPath: filepath.Join(dir, "scheduler.yaml"),
		PluginDir:  dir,
		Native:     hostplugins.Registry,
		Actions:    actions.Registry(),
		Cache:      cache,
		Debounce:   50 * time.Millisecond,
		Report:     report,
	}
	for _, w := range with {
		w(&opts)
	}
	r, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

// eventually polls cond until it holds or the timeout passes.
func eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %s", timeout, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// serving returns the digest serving plugin in the policy in service.
func serving(r *Reloader, plugin string) string {
	return r.Policies().Current().Versions[plugin]
}

func nativeRegistry() framework.Registry { return hostplugins.Registry() }

func actionRegistry() framework.ActionRegistry { return actions.Registry() }

// compiling reports whether the warmer has a compile under way.
func (w *warmer) compiling() bool {
	if w == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, job := range w.jobs {
		select {
		case <-job.done:
		default:
			return true
		}
	}
	return false
}
