package runtime

import (
	"context"
	"os"
	"testing"

	"github.com/tetratelabs/wazero"
)

// TestPrecompiledCodeServesTheLoad: Precompile leaves the module's code in
// the cache (here a directory, where it can be seen), a load of the same
// bytes finds it there, and the load keeps working after the precompiled
// copy is given back.
func TestPrecompiledCodeServesTheLoad(t *testing.T) {
	code, err := os.ReadFile(rawGuest(t))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cache, err := wazero.NewCompilationCacheWithDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	release, err := Precompile(ctx, code, Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if n := filesUnder(t, dir); n != 1 {
		t.Fatalf("%d compiled modules in the cache after Precompile, want 1", n)
	}
	p, err := LoadBytes(ctx, code, Options{Name: "raw", Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(ctx)
	release()
	if n := filesUnder(t, dir); n != 1 {
		t.Errorf("%d compiled modules in the cache after the load, want the same 1", n)
	}
	if got := predicate(t, p, 1, 2); len(got) != 2 || got[0] != 0 || got[1] != 2 {
		t.Errorf("predicate_batch codes %v after the precompiled copy was given back, want [0 2]", got)
	}

	if _, err := Precompile(ctx, []byte("\x00asm garbage"), Options{Cache: cache}); err == nil {
		t.Error("Precompile of garbage succeeded")
	}
	release, err = Precompile(ctx, code, Options{}) // no cache: nothing to do
	if err != nil {
		t.Errorf("Precompile without a cache: %v", err)
	}
	release()
}

func filesUnder(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			n += filesUnder(t, dir+"/"+e.Name())
		} else {
			n++
		}
	}
	return n
}
