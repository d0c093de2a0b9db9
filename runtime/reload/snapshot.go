package reload

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/caldera-scheduler/caldera/internal/regularfile"
)

// snapshot is the policy's files as read at one moment: each is read once,
// and the candidate is built from these bytes only, so that a file
// rewritten during the build cannot mix two versions.
type snapshot struct {
	// config is the configuration file's content; nil when no file is
	// configured (Volcano's default).
	config []byte
	// err is why the configuration or the plugin directory, errPath,
	// could not be read; the snapshot is then not built.
	err     error
	errPath string
	// modules holds DIR/<name>.wasm by plugin name.
	modules map[string]moduleFile
	// fingerprint identifies the whole set: equal fingerprints, same
	// policy.
	fingerprint string
}

type moduleFile struct {
	// image is set for a module pulled from a registry: path is then the
	// image pinned by digest.
	path, digest, image string
	code                []byte
	// err is why the file could not be read; it fails the policy only if
	// the configuration names the plugin.
	err error
}

// isModuleFile reports whether a plugin directory entry is a module:
// DIR/<name>.wasm, not hidden (editors' temporary copies, a ConfigMap
// volume's ..data folders).
func isModuleFile(base string) bool {
	return strings.HasSuffix(base, ".wasm") && !strings.HasPrefix(base, ".")
}

// contentDigest is a module's sha256, as the configuration pins it.
func contentDigest(code []byte) string {
	sum := sha256.Sum256(code)
	return hex.EncodeToString(sum[:])
}

// readSnapshot reads the configuration file and every module of the plugin
// directory. Hidden files are skipped: editors' temporary copies, and the
// ..data folders of a Kubernetes ConfigMap volume. A ConfigMap volume's
// files are read from the version folder its ..data link names when the
// snapshot starts, not through each key's link: the kubelet may swap
// ..data between two reads, and a configuration of one version with a
// module of the next is a policy nobody wrote. Files keep their top-level
// paths in what is reported.
//
// The kubelet removes the previous version folder right after the swap: a
// read that started in it before is made again, from the new one.
func (r *Reloader) readSnapshot() *snapshot {
	for attempt := 1; ; attempt++ {
		s, versions := r.readSnapshotOnce()
		if attempt == 3 || !removedDuring(versions) {
			return s
		}
	}
}

// removedDuring reports whether a version folder read from is gone.
func removedDuring(versions map[string]string) bool {
	for dir, v := range versions {
		if _, err := os.Stat(v); v != dir && err != nil {
			return true
		}
	}
	return false
}

// readSnapshotOnce reads the files once; it returns the folders it read
// them from, by directory.
func (r *Reloader) readSnapshotOnce() (*snapshot, map[string]string) {
	s := &snapshot{modules: map[string]moduleFile{}}
	h := sha256.New()
	versions := map[string]string{} // by directory, resolved once
	from := func(dir string) string {
		if _, ok := versions[dir]; !ok {
			versions[dir] = versionDir(dir)
		}
		return versions[dir]
	}
	if path := r.opts.ConfigPath; path != "" {
		s.config, s.err = regularfile.Read(filepath.Join(from(filepath.Dir(path)), filepath.Base(path)), regularfile.MaxConfig)
		if s.err != nil {
			s.err, s.errPath = fmt.Errorf("scheduler configuration: %w", s.err), path
		}
		fmt.Fprintf(h, "config %x %v\n", sha256.Sum256(s.config), s.err)
	}
	if dir := r.opts.PluginDir; dir != "" && s.err == nil {
		version := from(dir)
		entries, err := os.ReadDir(version)
		if err != nil {
			s.err, s.errPath = fmt.Errorf("plugin directory: %w", err), dir
		}
		for _, e := range entries {
			base := e.Name()
			if !isModuleFile(base) {
				continue
			}
			f := moduleFile{path: filepath.Join(dir, base)}
			f.code, f.err = regularfile.Read(filepath.Join(version, base), regularfile.MaxModule)
			if errors.Is(f.err, fs.ErrNotExist) {
				// A dangling link, in the middle of a ConfigMap update: the
				// module is going away.
				continue
			}
			if f.err == nil {
				f.digest = contentDigest(f.code)
			}
			s.modules[strings.TrimSuffix(base, ".wasm")] = f
			fmt.Fprintf(h, "module %s %s %v\n", base, f.digest, f.err)
		}
	}
	fmt.Fprintf(h, "error %v\n", s.err)
	s.fingerprint = hex.EncodeToString(h.Sum(nil))
	return s, versions
}

// versionDir is the folder to read dir's files from: the version folder
// that dir's ..data link names now when dir is a ConfigMap volume, dir
// itself otherwise.
func versionDir(dir string) string {
	if v, err := filepath.EvalSymlinks(filepath.Join(dir, "..data")); err == nil {
		return v
	}
	return dir
}
