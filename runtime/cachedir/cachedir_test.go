package cachedir

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// cacheFile writes size bytes at dir/name, modified age before now.
func cacheFile(t *testing.T, dir, name string, size int, now time.Time, age time.Duration) {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, now.Add(-age), now.Add(-age)); err != nil {
		t.Fatal(err)
	}
}

func remaining(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, path)
			out = append(out, rel)
		}
		return nil
	})
	slices.Sort(out)
	return out
}

func TestPruneKeepsTheNewestThatFit(t *testing.T) {
	dir, now := t.TempDir(), time.Now()
	cacheFile(t, dir, "wazero-v1/newest", 400, now, time.Minute)
	cacheFile(t, dir, "wazero-v1/newer", 400, now, time.Hour)
	cacheFile(t, dir, "wazero-v1/old", 400, now, 24*time.Hour)
	cacheFile(t, dir, "wazero-v0/oldest-small", 10, now, 48*time.Hour) // an older wazero's
	cacheFile(t, dir, "wazero-v1/abc.123.tmp", 300, now, time.Second)  // being written
	cacheFile(t, dir, "wazero-v1/def.456.tmp", 300, now, 2*time.Hour)  // left by a crash

	got, err := Prune(dir, 1100, now)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"wazero-v1/abc.123.tmp", "wazero-v1/newer", "wazero-v1/newest"}
	if left := remaining(t, dir); !slices.Equal(left, want) {
		t.Errorf("left %v, want %v", left, want)
	}
	// The temporary file being written counts, so it, the newest 400 bytes
	// and the newer 400 fill the bound: nothing older is kept, the small
	// file included.
	if got != (Pruned{Files: 3, Freed: 710, Kept: 1100}) {
		t.Errorf("pruned %+v, want 3 files and 710 bytes removed, 1100 kept", got)
	}
}

func TestPruneWithoutBoundOrCache(t *testing.T) {
	dir, now := t.TempDir(), time.Now()
	cacheFile(t, dir, "wazero-v1/a", 500, now, time.Hour)
	if got, err := Prune(dir, 0, now); err != nil || got != (Pruned{Kept: 500}) {
		t.Errorf("no bound: %+v, %v; want everything kept", got, err)
	}
	if got, err := Prune(filepath.Join(dir, "absent"), 100, now); err != nil || got != (Pruned{}) {
		t.Errorf("no cache directory yet: %+v, %v; want nothing and no error", got, err)
	}
}
