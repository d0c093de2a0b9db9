package runtime

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file that is not Wasm gets one error, the loader's, with no warning
// about instrumentation before it.
func TestNotWasmIsOneErrorWithoutWarnings(t *testing.T) {
	for name, code := range map[string]string{"junk": "garbage!", "truncated": "\x00asm\x01\x00\x00\x00\x05\x03\x01"} {
		path := filepath.Join(t.TempDir(), name+".wasm")
		if err := os.WriteFile(path, []byte(code), 0o644); err != nil {
			t.Fatal(err)
		}
		var logged []string
		_, err := Load(context.Background(), path, Options{Name: name, Limits: DefaultLimits(), Log: func(_ int, msg string) { logged = append(logged, msg) }})
		if err == nil || !strings.Contains(err.Error(), "not a valid Wasm module") {
			t.Errorf("%s: %v, want not a valid Wasm module", name, err)
		}
		if len(logged) > 0 {
			t.Errorf("%s: logged %q before the error", name, logged)
		}
	}
}
