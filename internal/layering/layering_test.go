// Package layering holds the test that keeps the project's import rules.
package layering

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/caldera-scheduler/caldera/"

// The layers, by what each may not depend on, directly or not: the
// scheduler core knows no plugin and no runtime; native plugins and the
// Wasm runtime are peers behind the framework's interfaces, neither
// knowing the other (what both read of a pod lies in scheduler/api and
// scheduler/podrules); nothing below the commands imports them; the ABI
// types depend on nothing of the host.
var rules = []struct {
	packages  string
	forbidden []string
}{
	{"./scheduler/...", []string{"runtime", "hostplugins", "cmd", "e2e", "benchmarks"}},
	{"./runtime/...", []string{"hostplugins", "cmd", "e2e", "benchmarks"}},
	{"./hostplugins/...", []string{"runtime", "cmd", "e2e", "benchmarks"}},
	{"./abi/...", []string{"scheduler", "runtime", "hostplugins", "cmd", "internal"}},
}

func TestImportRules(t *testing.T) {
	root := filepath.Join("..", "..")
	for _, r := range rules {
		for pkg, deps := range dependencies(t, root, r.packages) {
			for _, d := range deps {
				for _, f := range r.forbidden {
					if d == module+f || strings.HasPrefix(d, module+f+"/") {
						t.Errorf("%s depends on %s", pkg, d)
					}
				}
			}
		}
	}
}

// The Go guest SDK is its own module: a guest built with it must not pull
// in any host package.
func TestGuestSDKImportsNoHostPackage(t *testing.T) {
	for pkg, deps := range dependencies(t, filepath.Join("..", "..", "guest-sdk", "go"), "./...") {
		for _, d := range deps {
			if strings.HasPrefix(d, module) && !strings.HasPrefix(d, module+"guest-sdk/") {
				t.Errorf("%s depends on host package %s", pkg, d)
			}
		}
	}
}

// dependencies lists, for each package the pattern matches in dir, every
// package it depends on. Tests are left out: a differential test may put a
// Wasm port beside the native plugin it mirrors.
func dependencies(t *testing.T, dir, pattern string) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Deps \" \"}}", pattern)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s in %s: %v", pattern, dir, err)
	}
	deps := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		deps[fields[0]] = append(deps[fields[0]], fields[1:]...)
	}
	if len(deps) == 0 {
		t.Fatalf("go list %s in %s matched no package", pattern, dir)
	}
	return deps
}
