package conf

import (
	"os"
	"path/filepath"
	"testing"
)

// Any bytes as a scheduler configuration: an error naming what is wrong,
// never a panic. Seeds: the built-in default and every scenario's
// configuration.
func FuzzParse(f *testing.F) {
	f.Add(DefaultYAML())
	f.Add([]byte("actions: allocate\nactions: enqueue\n"))
	f.Add([]byte("actions: allocate\ntiers:\n- plugins:\n  - name: binpack\n    arguments: {weight: 1e300}\n"))
	paths, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "scenarios", "*", "*", "scheduler.yaml"))
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = Parse(data, "f.yaml", fakeValidator{})
	})
}
