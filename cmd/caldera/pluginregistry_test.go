package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/caldera-scheduler/caldera/runtime/ocimodule/ocitest"
)

// The author's loop: push prints the pinned image, pull gets the same
// bytes back, and caldera simulate with a tier entry naming the image
// decides as with the file.
func TestPluginPushPullAndSimulateByImage(t *testing.T) {
	requirePorts(t, "binpack.tinygo")
	module := filepath.Join(pluginDir, "binpack.tinygo.wasm")
	reg := ocitest.New(t, false)
	out, err := runCaldera("plugin", "push", "--registry-plain-http", module, reg.Host()+"/policies/binpack:v1")
	if err != nil {
		t.Fatalf("push: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`(?m)^image: +(\S+@sha256:[0-9a-f]{64})$`).FindStringSubmatch(out)
	if m == nil || !strings.HasPrefix(m[1], reg.Host()+"/policies/binpack@") {
		t.Fatalf("push printed no pinned image:\n%s", out)
	}
	image := m[1]
	if again, err := runCaldera("plugin", "push", "--registry-plain-http", module, reg.Host()+"/policies/binpack:v1"); err != nil || !strings.Contains(again, "image:      "+image+"\n") {
		t.Errorf("pushing the same module again: %v\n%s", err, again)
	}
	if _, err := runCaldera("plugin", "push", "--registry-plain-http", "../../README.md", reg.Host()+"/policies/readme:v1"); err == nil {
		t.Error("push accepted a file that is not a module")
	}

	dir := t.TempDir()
	pulled := filepath.Join(dir, "pulled.wasm")
	out, err = runCaldera("plugin", "pull", "--registry-plain-http", "--wasm-cache-dir", filepath.Join(dir, "cache"), "-o", pulled, reg.Host()+"/policies/binpack:v1")
	if err != nil || !strings.Contains(out, "pulled "+image+" to "+pulled) {
		t.Fatalf("pull: %v\n%s", err, out)
	}
	want, _ := os.ReadFile(module)
	if got, _ := os.ReadFile(pulled); string(got) != string(want) {
		t.Fatal("the pulled module differs from the pushed one")
	}

	cluster := "../../examples/clusters/training-cluster.yaml"
	conf := func(entry string) string {
		path := filepath.Join(dir, "scheduler.yaml")
		text := "actions: \"enqueue, allocate, backfill\"\ntiers:\n- plugins: [{name: priority}, {name: gang}]\n- plugins: [{name: predicates}, " + entry + "]\n"
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	byFile, err := runCaldera("simulate", "--cluster", cluster, "--output", "json", "--scheduler-conf", conf("{name: binpack.tinygo}"), "--plugin-dir", pluginDir)
	if err != nil {
		t.Fatal(err)
	}
	byImage, err := runCaldera("simulate", "--cluster", cluster, "--output", "json", "--registry-plain-http", "--wasm-cache-dir", filepath.Join(dir, "cache"),
		"--scheduler-conf", conf(`{name: binpack.tinygo, arguments: {wasm.image: "`+image+`"}}`), "--plugin-dir", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if byImage != byFile || !strings.Contains(byFile, `"binds":{"`) {
		t.Errorf("simulate with the image decides otherwise than with the file:\n%s\n%s", byImage, byFile)
	}
}
