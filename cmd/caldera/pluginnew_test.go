package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// `caldera plugin new --lang go` writes a module that builds, whose unit
// test passes, and whose scenario passes under `caldera plugin test`, from
// a folder outside the repository. (The end-to-end suite does the same for
// TinyGo and Rust, whose toolchains make check does not need.)
func TestPluginNewGoBuildsAndPasses(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pack")
	out, err := runCaldera("plugin", "new", "pack", "--lang", "go", "--dir", dir, "--sdk", "../..")
	if err != nil || !strings.Contains(out, "GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o pack.wasm .") {
		t.Fatalf("plugin new: %v\n%s", err, out)
	}
	for _, args := range [][]string{
		{"mod", "tidy"},
		{"test", "./..."},
		{"build", "-buildmode=c-shared", "-o", "pack.wasm", "."},
	} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod")
		if args[0] == "build" {
			cmd.Env = append(cmd.Env, "GOOS=wasip1", "GOARCH=wasm")
		}
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, b)
		}
	}
	out, err = runCaldera("plugin", "test", "--wasm-cache-dir", "", "--plugin-dir", dir, filepath.Join(dir, "scenario"))
	if err != nil || !strings.Contains(out, "1 scenario folder(s): 1 passed, 0 failed") {
		t.Errorf("plugin test of the scaffold: %v\n%s", err, out)
	}
}

func TestPluginNewRefusesWhatItCannotWrite(t *testing.T) {
	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, "keep.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"Bad_Name", "--lang", "go"}, `plugin name "Bad_Name": expected lower-case letters`},
		{[]string{"ok", "--lang", "java"}, `--lang: expected go, tinygo or rust, got "java"`},
		{[]string{"ok", "--lang", "go", "--dir", full}, "not empty"},
		{[]string{"ok", "--lang", "rust", "--dir", filepath.Join(full, "x"), "--sdk", full}, "no guest-sdk/go/go.mod there"},
	} {
		_, err := runCaldera(append([]string{"plugin", "new"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("plugin new %v: %v, want %q", c.args, err, c.want)
		}
	}
	// The Rust scaffold names its crate's library as the module file needs.
	dir := filepath.Join(t.TempDir(), "zone-pack")
	if _, err := runCaldera("plugin", "new", "zone-pack", "--lang", "rust", "--dir", dir, "--sdk", "../.."); err != nil {
		t.Fatal(err)
	}
	cargo, err := os.ReadFile(filepath.Join(dir, "Cargo.toml"))
	if err != nil || !strings.Contains(string(cargo), `name = "zone_pack"`) || strings.Contains(string(cargo), "@") {
		t.Errorf("Cargo.toml: %v\n%s", err, cargo)
	}
}
