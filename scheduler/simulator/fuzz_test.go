package simulator

import (
	"os"
	"path/filepath"
	"testing"
)

// Any bytes as a cluster file: an error naming the document, never a
// panic. Seeds: every scenario's cluster.
func FuzzParseCluster(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "scenarios", "*", "*", "cluster.yaml"))
	for i, p := range paths {
		if i == 20 {
			break // the shapes repeat; keep the seed run short
		}
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, resources: {requests: {cpu: \"1e16\"}}}]}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = ParseCluster(data, "c.yaml")
	})
}
