// Package reloadtest helps tests of hot reload change a plugin directory
// the way a cluster changes a mounted ConfigMap.
package reloadtest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// ConfigMapVolume writes a directory the way the kubelet's atomic writer
// updates a ConfigMap volume: each version in its own ..<timestamp> folder,
// the ..data link renamed over to the new one, each key a link through
// ..data, the old folder removed.
type ConfigMapVolume struct {
	t   testing.TB
	dir string
	seq int
	old string
}

// NewConfigMapVolume writes versions into dir, which should be empty.
func NewConfigMapVolume(t testing.TB, dir string) *ConfigMapVolume {
	return &ConfigMapVolume{t: t, dir: dir}
}

// Dir is the volume's directory, as a scheduler would mount it.
func (c *ConfigMapVolume) Dir() string { return c.dir }

// Update publishes a new version holding exactly files.
func (c *ConfigMapVolume) Update(files map[string][]byte) {
	t := c.t
	t.Helper()
	c.seq++
	version := fmt.Sprintf("..2025_01_01_00_00_%02d.%09d", c.seq, c.seq)
	if err := os.Mkdir(filepath.Join(c.dir, version), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(c.dir, version, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tmp := filepath.Join(c.dir, "..data_tmp")
	if err := os.Symlink(version, tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(c.dir, "..data")); err != nil {
		t.Fatal(err)
	}
	for name := range files {
		link := filepath.Join(c.dir, name)
		if _, err := os.Lstat(link); os.IsNotExist(err) {
			if err := os.Symlink(filepath.Join("..data", name), link); err != nil {
				t.Fatal(err)
			}
		}
	}
	if c.old != "" {
		if err := os.RemoveAll(filepath.Join(c.dir, c.old)); err != nil {
			t.Fatal(err)
		}
	}
	c.old = version
}
