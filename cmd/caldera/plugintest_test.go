package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyScenario copies a repository scenario folder to dst.
func copyScenario(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// `caldera plugin test` passes a folder that decides as expected, fails
// one that does not with the difference spelled out, and exits non-zero.
func TestPluginTestReportsEachFolder(t *testing.T) {
	src := "../../testdata/scenarios/volcano/reclaim-overused-queue"
	root := t.TempDir()
	copyScenario(t, src, filepath.Join(root, "good"))
	copyScenario(t, src, filepath.Join(root, "bad"))
	expect := filepath.Join(root, "bad", "expect.yaml")
	if err := os.WriteFile(expect, []byte("evictions: [c1/preemptee1]\nsessions: 1\nsource: a wrong guess\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runCaldera("plugin", "test", "--wasm-cache-dir", "", root)
	if err == nil || !strings.Contains(err.Error(), "1 of 2 scenario folder(s) failed") {
		t.Errorf("error = %v, want 1 of 2 failed", err)
	}
	for _, line := range []string{
		"ok    " + filepath.Join(root, "good"),
		"FAIL  " + filepath.Join(root, "bad"),
		"      evictions: c1/preemptee2: evicted, want it kept",
		"      evictions: c1/preemptee1: kept, want it evicted",
		"      source: a wrong guess",
		"2 scenario folder(s): 1 passed, 1 failed",
	} {
		if !strings.Contains(out, line+"\n") {
			t.Errorf("output lacks %q:\n%s", line, out)
		}
	}
	if out, err := runCaldera("plugin", "test", "--wasm-cache-dir", "", filepath.Join(root, "good")); err != nil {
		t.Errorf("a passing folder: %v\n%s", err, out)
	}
}

func TestPluginUnknownSubcommandFails(t *testing.T) {
	_, err := runCaldera("plugin", "tset", "x")
	if err == nil || !strings.Contains(err.Error(), `unknown command "tset" for "caldera plugin"`) {
		t.Errorf("error = %v, want unknown command", err)
	}
}
