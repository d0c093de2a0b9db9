package reload

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/caldera-scheduler/caldera/hostplugins"
	"github.com/caldera-scheduler/caldera/runtime/reload/reloadtest"
	"github.com/caldera-scheduler/caldera/scheduler/actions"
)

// TestChangedModuleIsCompiledBeforeTheReload: with a debounce far longer
// than a compile, the new module's code is in the compilation cache while
// the old module still serves; the reload that follows serves it and
// gives the warmer's copy back.
func TestChangedModuleIsCompiledBeforeTheReload(t *testing.T) {
	binpack, draining := moduleBytes(t, "binpack.tinygo"), moduleBytes(t, "draining.tinygo")
	dir, cacheDir := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(dir, "scheduler.yaml"), []byte(confNaming("policy")))
	module := filepath.Join(dir, "policy.wasm")
	writeFile(t, module, binpack)
	cache, err := wazero.NewCompilationCacheWithDir(cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(context.Background(), Options{
		ConfigPath: filepath.Join(dir, "scheduler.yaml"), PluginDir: dir,
		Native: hostplugins.Registry, Actions: actions.Registry(), Cache: cache,
		Debounce: time.Hour, FirstLook: -1, // only the warmer acts on the event
	})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx, cancel := context.WithCancel(context.Background())
	watching := make(chan struct{})
	go func() {
		defer close(watching)
		if err := r.Watch(ctx); err != nil {
			t.Error(err)
		}
	}()
	defer func() { cancel(); <-watching }()
	time.Sleep(100 * time.Millisecond) // let the watch start
	compiled := cachedFiles(t, cacheDir)

	reloadtest.RenameInto(t, module, draining)
	eventually(t, 30*time.Second, "draining's code in the compilation cache", func() bool {
		return cachedFiles(t, cacheDir) > compiled
	})
	if got := serving(r, "policy"); got != digest(binpack) {
		t.Fatalf("serving %s before any reload, want binpack's %s", got, digest(binpack))
	}
	if out := r.Reload(ctx); out.Err != nil || len(out.Changes) != 1 {
		t.Fatalf("reload: %+v", out)
	}
	if got := serving(r, "policy"); got != digest(draining) {
		t.Fatalf("serving %s after the reload, want draining's %s", got, digest(draining))
	}
	r.warm.mu.Lock()
	held := len(r.warm.jobs)
	r.warm.mu.Unlock()
	if held != 0 {
		t.Errorf("the warmer holds %d compiles after the reload that read them, want 0", held)
	}
}

func cachedFiles(t *testing.T, dir string) int {
	n := 0
	err := filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
