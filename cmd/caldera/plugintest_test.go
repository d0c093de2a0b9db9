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

// A declared argument of the wrong type stops a one-shot simulate as it
// stops a reload, in the native plugin's words: before, the module
// refused it at session_open and every pod stayed pending (exit 0).
func TestDeclaredArgumentTypesAreCheckedAtLoad(t *testing.T) {
	requirePorts(t, "binpack.tinygo")
	dir := t.TempDir()
	refusal := func(plugin string) string {
		conf := filepath.Join(dir, plugin+".yaml")
		text := "actions: allocate\ntiers:\n- plugins: [{name: gang}, {name: " + plugin + ", arguments: {binpack.weight: heavy, binpack.resources.nvidia.com/gpu: 2}}]\n"
		if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := runCaldera("simulate", "--wasm-cache-dir", "", "--cluster", "../../examples/clusters/training-cluster.yaml", "--scheduler-conf", conf, "--plugin-dir", pluginDir)
		if err == nil {
			t.Fatalf("%s: simulate accepted binpack.weight: heavy", plugin)
		}
		_, words, _ := strings.Cut(err.Error(), "): ")
		return words
	}
	native, port := refusal("binpack"), refusal("binpack.tinygo")
	if want := `argument "binpack.weight": expected an integer, got string heavy`; native != want || port != native {
		t.Errorf("native refusal %q, port refusal %q; want both %q", native, port, want)
	}
	// A family member (binpack.resources.<name>, an int) is checked too.
	conf := filepath.Join(dir, "family.yaml")
	if err := os.WriteFile(conf, []byte("actions: allocate\ntiers:\n- plugins: [{name: binpack.tinygo, arguments: {binpack.resources.nvidia.com/gpu: lots}}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := runCaldera("simulate", "--wasm-cache-dir", "", "--cluster", "../../examples/clusters/training-cluster.yaml", "--scheduler-conf", conf, "--plugin-dir", pluginDir)
	if err == nil || !strings.Contains(err.Error(), `argument "binpack.resources.nvidia.com/gpu": expected an integer`) {
		t.Errorf("family member: %v", err)
	}
}
