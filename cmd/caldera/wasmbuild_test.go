package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// buildWasm compiles the Go module in srcDir into a reactor module at out
// with the standard Go toolchain (the Go build cache makes reruns fast).
func buildWasm(srcDir, out string, tags ...string) error {
	args := []string{"build", "-buildmode=c-shared", "-o", out}
	if len(tags) > 0 {
		args = append(args, "-tags", tags[0])
	}
	cmd := exec.Command("go", append(args, ".")...)
	cmd.Dir = srcDir
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building %s: %v\n%s", srcDir, err, b)
	}
	return nil
}

// rustCache is where make rust configures Debian's cargo (hack/rust.sh).
const rustCache = "../../.cache/rust"

// buildRustWasm compiles the Rust plugin crate in srcDir for target with the
// cargo that make rust configures (its shared target folder makes reruns
// fast) and returns the module's path. Without that cargo the test is
// skipped, unless CALDERA_REQUIRE_PLUGINS is set.
func buildRustWasm(t *testing.T, srcDir, target string) string {
	t.Helper()
	cargo, err := filepath.Abs(filepath.Join(rustCache, "bin", "cargo-wrapped"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(cargo); err != nil {
		if os.Getenv("CALDERA_REQUIRE_PLUGINS") != "" {
			t.Fatalf("no Rust toolchain: %v (make rust configures it)", err)
		}
		t.Skipf("no Rust toolchain at %s; run make rust", cargo)
	}
	manifest, err := os.ReadFile(filepath.Join(srcDir, "Cargo.toml"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^name\s*=\s*"([^"]+)"`).FindSubmatch(manifest)
	if m == nil {
		t.Fatalf("%s/Cargo.toml names no package", srcDir)
	}
	targetDir, err := filepath.Abs(filepath.Join(rustCache, "target"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(cargo, "build", "-q", "--release", "--target", target)
	cmd.Dir = srcDir
	cmd.Env = append(os.Environ(), "CARGO_TARGET_DIR="+targetDir)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cargo build %s for %s: %v\n%s", srcDir, target, err, b)
	}
	return filepath.Join(targetDir, target, "release", strings.ReplaceAll(string(m[1]), "-", "_")+".wasm")
}
