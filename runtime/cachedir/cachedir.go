// Package cachedir keeps the on-disk Wasm compilation cache within a size.
//
// wazero writes one file per compiled module into the cache directory and
// never removes one unless wazero itself changes version. A hot-reloaded
// scheduler compiles every new version of a module it is given, or that
// its warmer sees land (a Go-toolchain module is about 10 MB compiled), so
// without a bound the directory grows until its volume is full; in a pod
// whose cache is an emptyDir with a size limit, that is an eviction.
package cachedir

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// staleTemp is the age past which a temporary file is a leftover of a
// write that never finished (the process stopped), not one under way.
const staleTemp = 10 * time.Minute

// Pruned says what Prune removed and what it left.
type Pruned struct {
	Files       int   // files removed
	Freed, Kept int64 // bytes removed and left
}

// Prune keeps the newest files under dir (by modification time, that is by
// when the module was compiled) that take at most maxBytes together, and
// removes the first that would not fit and every older one.
// Removing a file costs at most one compile later: wazero reads a cached
// module once, when it is loaded, and compiles it again when the file is
// gone. A temporary file being written is left alone until it is stale.
// maxBytes <= 0 removes nothing. A missing dir is an empty cache.
func Prune(dir string, maxBytes int64, now time.Time) (Pruned, error) {
	type entry struct {
		path string
		size int64
		mod  time.Time
	}
	var entries []entry
	var out Pruned
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == dir && os.IsNotExist(err) {
				return fs.SkipAll
			}
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil // removed meanwhile
		}
		if strings.HasSuffix(path, ".tmp") && now.Sub(info.ModTime()) < staleTemp {
			out.Kept += info.Size()
			return nil
		}
		entries = append(entries, entry{path, info.Size(), info.ModTime()})
		return nil
	})
	if err != nil || maxBytes <= 0 {
		for _, e := range entries {
			out.Kept += e.size
		}
		return out, err
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].mod.After(entries[j].mod) })
	full := false
	for _, e := range entries {
		if full = full || out.Kept+e.size > maxBytes; !full {
			out.Kept += e.size
			continue
		}
		if err := os.Remove(e.path); err != nil && !os.IsNotExist(err) {
			out.Kept += e.size
			continue
		}
		out.Files++
		out.Freed += e.size
	}
	return out, nil
}
