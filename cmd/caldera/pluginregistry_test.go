package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/caldera-scheduler/caldera/runtime/ocimodule/ocitest"
	"github.com/caldera-scheduler/caldera/runtime/reload/reloadtest"
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

	// caldera plugin test passes the registry flags to each folder.
	var res struct{ Binds map[string]string }
	if err := json.Unmarshal([]byte(byFile), &res); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "by-image")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	cl, _ := os.ReadFile(cluster)
	mustWrite(t, filepath.Join(folder, "cluster.yaml"), cl)
	sc, _ := os.ReadFile(conf(`{name: binpack.tinygo, arguments: {wasm.image: "` + image + `"}}`))
	mustWrite(t, filepath.Join(folder, "scheduler.yaml"), sc)
	mustWrite(t, filepath.Join(folder, "expect.yaml"), fmt.Appendf(nil, "bindCount: %d\n", len(res.Binds)))
	if out, err := runCaldera("plugin", "test", "--registry-plain-http", "--wasm-cache-dir", t.TempDir(), folder); err != nil || !strings.Contains(out, "ok    "+folder) {
		t.Errorf("plugin test of a folder naming the image: %v\n%s", err, out)
	}
	if out, err := runCaldera("plugin", "test", "--wasm-cache-dir", t.TempDir(), folder); err == nil || !strings.Contains(out, "FAIL  "+folder) {
		t.Errorf("plugin test without --registry-plain-http passed against a plain-HTTP registry: %v\n%s", err, out)
	}
}

// Each session of `caldera simulate --watch` names the image, pinned by
// digest, that served a plugin named by wasm.image; naming another digest
// swaps the module between sessions.
func TestSimulateWatchNamesTheImage(t *testing.T) {
	requirePorts(t, "draining.tinygo", "binpack.tinygo")
	reg := ocitest.New(t, false)
	push := func(module, tag string) string {
		out, err := runCaldera("plugin", "push", "--registry-plain-http", filepath.Join(pluginDir, module+".wasm"), reg.Host()+"/policies/placement:"+tag)
		m := regexp.MustCompile(`(?m)^image: +(\S+)$`).FindStringSubmatch(out)
		if err != nil || m == nil {
			t.Fatalf("push %s: %v\n%s", module, err, out)
		}
		return m[1]
	}
	drainingImage, binpackImage := push("draining.tinygo", "draining"), push("binpack.tinygo", "binpack")
	draining, _ := os.ReadFile(filepath.Join(pluginDir, "draining.tinygo.wasm"))
	dir := t.TempDir()
	mustWrite(t, filepath.Join(dir, "cluster.yaml"), []byte(watchClusterWithPods()))
	conf := func(image string) {
		reloadtest.RenameInto(t, filepath.Join(dir, "scheduler.yaml"), []byte(strings.Replace(watchConf, "{name: policy}", `{name: policy, arguments: {wasm.image: "`+image+`"}}`, 1)))
	}
	conf(drainingImage)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out := &lines{}
	cmd := newRootCommand()
	cmd.SetOut(out)
	cmd.SetArgs([]string{"simulate", "--watch", "--output=json", "--schedule-period=50ms", "--watch-debounce=100ms", "--registry-plain-http",
		"--cluster=" + filepath.Join(dir, "cluster.yaml"), "--scheduler-conf=" + filepath.Join(dir, "scheduler.yaml"), "--wasm-cache-dir=" + t.TempDir()})
	exited := make(chan error, 1)
	go func() { exited <- cmd.ExecuteContext(ctx) }()
	waitSession := func(what string, pred func(sessionLine) bool) {
		t.Helper()
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			for _, l := range out.sessions(t) {
				if pred(l) {
					return
				}
			}
		}
		t.Fatalf("no session line with %s; output:\n%s", what, out.String())
	}
	waitSession("draining's image", func(l sessionLine) bool {
		return l.Images["policy"] == drainingImage && l.Plugins["policy"] == digest(draining) && len(l.Binds) == 4
	})
	conf(binpackImage)
	waitSession("binpack's image binding the two pending pods", func(l sessionLine) bool {
		return l.Images["policy"] == binpackImage && len(l.Binds) == 2
	})
	cancel()
	if err := <-exited; err != nil {
		t.Fatalf("simulate --watch ended with %v", err)
	}
}
