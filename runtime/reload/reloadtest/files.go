package reloadtest

import (
	"os"
	"path/filepath"
	"testing"
)

// RenameInto writes data to a hidden file next to path and renames it over
// path, so that the file appears whole, as editors save and `mv` lands a
// file.
func RenameInto(t testing.TB, path string, data []byte) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}
