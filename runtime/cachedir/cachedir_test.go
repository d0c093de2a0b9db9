package cachedir

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// key is a wazero entry's name: a sha256 in hex, here made of c.
func key(c byte) string { return strings.Repeat(string(c), 64) }

func TestPruneKeepsTheNewestThatFit(t *testing.T) {
	dir, now := t.TempDir(), time.Now()
	v1, v0 := "wazero-v1.12.0-amd64-linux/", "wazero-v1.11.0-amd64-linux/"
	cacheFile(t, dir, v1+key('a'), 400, now, time.Minute)            // newest
	cacheFile(t, dir, v1+key('b'), 400, now, time.Hour)              // newer
	cacheFile(t, dir, v1+key('c'), 400, now, 24*time.Hour)           // old
	cacheFile(t, dir, v0+key('d'), 10, now, 48*time.Hour)            // an older wazero's
	cacheFile(t, dir, v1+key('e')+".123.tmp", 300, now, time.Second) // being written
	cacheFile(t, dir, v1+key('f')+".456.tmp", 300, now, 2*time.Hour) // left by a crash
	// Not wazero's: left alone, however old.
	cacheFile(t, dir, "notes.txt", 5000, now, 72*time.Hour)
	cacheFile(t, dir, v1+"README", 5000, now, 72*time.Hour)
	cacheFile(t, dir, "other/"+key('g'), 5000, now, 72*time.Hour)

	got, err := Prune(dir, 1100, now)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"notes.txt", "other/" + key('g'), v1 + "README", v1 + key('a'), v1 + key('b'), v1 + key('e') + ".123.tmp"}
	slices.Sort(want)
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
	cacheFile(t, dir, "wazero-v1/"+key('a'), 500, now, time.Hour)
	if got, err := Prune(dir, 0, now); err != nil || got != (Pruned{Kept: 500}) {
		t.Errorf("no bound: %+v, %v; want everything kept", got, err)
	}
	if got, err := Prune(filepath.Join(dir, "absent"), 100, now); err != nil || got != (Pruned{}) {
		t.Errorf("no cache directory yet: %+v, %v; want nothing and no error", got, err)
	}
}

// Pulled blobs share the bound with compiled modules, least recently used
// first; the tag records beside them are not entries.
func TestPrunePulledBlobsShareTheBound(t *testing.T) {
	dir, now := t.TempDir(), time.Now()
	blobs, tags := filepath.ToSlash(OCIBlobs)+"/", filepath.ToSlash(OCITags)+"/"
	v1 := "wazero-v1.12.0-amd64-linux/"
	cacheFile(t, dir, blobs+key('a'), 300, now, time.Minute) // used a minute ago
	cacheFile(t, dir, v1+key('b'), 300, now, time.Hour)
	cacheFile(t, dir, blobs+key('c'), 300, now, 24*time.Hour)
	cacheFile(t, dir, tags+key('d'), 80, now, 72*time.Hour)
	got, err := Prune(dir, 700, now)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{blobs + key('a'), tags + key('d'), v1 + key('b')}
	if left := remaining(t, dir); !slices.Equal(left, want) {
		t.Errorf("left %q, want %q", left, want)
	}
	if got.Files != 1 || got.Freed != 300 || got.Kept != 600 {
		t.Errorf("Prune = %+v, want 1 file of 300 bytes removed, 600 kept", got)
	}
}
