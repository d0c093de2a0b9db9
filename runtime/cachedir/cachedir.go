// Package cachedir keeps the on-disk Wasm cache within a size: the
// compilation cache and the modules pulled from registries.
//
// wazero writes one file per compiled module into the cache directory and
// never removes one unless wazero itself changes version. A hot-reloaded
// scheduler compiles every new version of a module it is given, or that
// its warmer sees land (a Go-toolchain module is about 10 MB compiled), so
// without a bound the directory grows until its volume is full; in a pod
// whose cache is an emptyDir with a size limit, that is an eviction.
package cachedir

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Where runtime/ocimodule keeps pulled blobs (manifests and modules, by
// sha256) and what tags resolved to, under the cache directory. Blobs
// count toward the bound and are evicted with compiled modules; tag
// records are a few bytes each and are not.
var (
	OCIBlobs = filepath.Join("oci", "blobs", "sha256")
	OCITags  = filepath.Join("oci", "tags")
)

// staleTemp is the age past which a temporary file is a leftover of a
// write that never finished (the process stopped), not one under way.
const staleTemp = 10 * time.Minute

// Pruned says what Prune removed and what it left.
type Pruned struct {
	Files       int   // files removed
	Freed, Kept int64 // bytes removed and left
}

// Prune keeps the newest entries under dir (by modification time: when a
// module was compiled, when a pulled blob was last used) that take at most
// maxBytes together, and removes the first that would not fit and every
// older one. Only entries are counted and removed: the files directly
// inside dir's wazero-* folders (one per wazero version) and OCIBlobs
// named by a hex digest, or temporary files of theirs (<digest>.*.tmp)
// once stale; anything else in dir is left alone, so a cache directory
// shared with other files loses none of them. Removing an entry costs at
// most one compile or one pull later: wazero reads a cached module once,
// when it is loaded, and compiles it again when the entry is gone; a
// module in service is in memory and needs neither. A folder that cannot be read is skipped
// and reported in the error, after the rest has been pruned. maxBytes <= 0
// removes nothing. A missing dir is an empty cache.
func Prune(dir string, maxBytes int64, now time.Time) (Pruned, error) {
	var out Pruned
	entries, err := wazeroEntries(dir, now, &out)
	if maxBytes <= 0 {
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
		if rerr := os.Remove(e.path); rerr != nil && !os.IsNotExist(rerr) {
			out.Kept += e.size
			err = errors.Join(err, rerr)
			continue
		}
		out.Files++
		out.Freed += e.size
	}
	return out, err
}

type entry struct {
	path string
	size int64
	mod  time.Time
}

// wazeroEntries lists the removable entries of dir's wazero-* folders and
// of its pulled blobs; a temporary file still being written is added to
// out.Kept instead.
func wazeroEntries(dir string, now time.Time, out *Pruned) ([]entry, error) {
	versions, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	var folders []string
	for _, v := range versions {
		if v.IsDir() && strings.HasPrefix(v.Name(), "wazero-") {
			folders = append(folders, filepath.Join(dir, v.Name()))
		}
	}
	if _, serr := os.Stat(filepath.Join(dir, OCIBlobs)); serr == nil {
		folders = append(folders, filepath.Join(dir, OCIBlobs))
	}
	var entries []entry
	for _, folder := range folders {
		files, rerr := os.ReadDir(folder)
		if rerr != nil {
			err = errors.Join(err, rerr)
			continue
		}
		for _, f := range files {
			if !f.Type().IsRegular() {
				continue
			}
			key, temp := f.Name(), false
			if i := strings.IndexByte(key, '.'); i >= 0 {
				key, temp = key[:i], strings.HasSuffix(f.Name(), ".tmp")
				if !temp {
					continue
				}
			}
			if !isDigest(key) {
				continue
			}
			info, ierr := f.Info()
			if ierr != nil {
				continue // removed meanwhile
			}
			if temp && now.Sub(info.ModTime()) < staleTemp {
				out.Kept += info.Size()
				continue
			}
			entries = append(entries, entry{filepath.Join(folder, f.Name()), info.Size(), info.ModTime()})
		}
	}
	return entries, err
}

// isDigest reports whether name is a sha256 in hex, as wazero names its
// entries.
func isDigest(name string) bool {
	if len(name) != 64 {
		return false
	}
	for _, c := range name {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
