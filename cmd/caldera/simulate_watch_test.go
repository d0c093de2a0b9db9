package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caldera-scheduler/caldera/runtime/reload/reloadtest"
)

// watchCluster: node-0 is draining, node-1 holds four of the six pods.
const watchCluster = `apiVersion: v1
kind: Node
metadata: {name: node-0, annotations: {caldera.sh/draining: "true"}}
status: {allocatable: {cpu: "4", memory: 16Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: node-1}
status: {allocatable: {cpu: "4", memory: 16Gi, pods: "110"}}
`

const watchConf = `actions: "enqueue, allocate"
tiers:
- plugins: [{name: priority}, {name: gang}]
- plugins: [{name: predicates}, {name: nodeorder}, {name: policy}]
`

// watchClusterWithPods is watchCluster with six pending pods of one cpu.
func watchClusterWithPods() string {
	cluster := watchCluster
	for i := range 6 {
		cluster += fmt.Sprintf("---\napiVersion: v1\nkind: Pod\nmetadata: {name: p%d, namespace: default}\nspec: {schedulerName: volcano, containers: [{name: c, image: x, resources: {requests: {cpu: \"1\"}}}]}\n", i)
	}
	return cluster
}

// TestSimulateWatchReloadsBetweenSessions drives `caldera simulate --watch
// --output json` as a policy author would: draining serves plugin policy
// and keeps two pods pending; a broken module is dropped in and refused
// while draining keeps serving; then binpack's module lands, and the next
// sessions place the pending pods on the draining node. Every line is one
// session, naming the module that served it. The compilation cache is
// kept within --wasm-cache-max-size: a stale entry three times the bound's
// size is gone at the end, and what is left fits.
func TestSimulateWatchReloadsBetweenSessions(t *testing.T) {
	requirePorts(t, "draining.tinygo", "binpack.tinygo")
	draining, _ := os.ReadFile(filepath.Join(pluginDir, "draining.tinygo.wasm"))
	binpack, _ := os.ReadFile(filepath.Join(pluginDir, "binpack.tinygo.wasm"))
	dir := t.TempDir()
	module := filepath.Join(dir, "policy.wasm")
	mustWrite(t, filepath.Join(dir, "cluster.yaml"), []byte(watchClusterWithPods()))
	mustWrite(t, filepath.Join(dir, "scheduler.yaml"), []byte(watchConf))
	mustWrite(t, module, draining)
	cacheDir := t.TempDir()
	stale := filepath.Join(cacheDir, "wazero-v0.0.0-amd64-linux", strings.Repeat("0a", 32))
	if err := os.MkdirAll(filepath.Dir(stale), 0o755); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, stale, make([]byte, 3<<20))
	if err := os.Chtimes(stale, time.Now().Add(-48*time.Hour), time.Now().Add(-48*time.Hour)); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out := &lines{}
	cmd := newRootCommand()
	cmd.SetOut(out)
	cmd.SetArgs([]string{"simulate", "--watch", "--output=json", "--schedule-period=50ms", "--watch-debounce=100ms",
		"--cluster=" + filepath.Join(dir, "cluster.yaml"), "--scheduler-conf=" + filepath.Join(dir, "scheduler.yaml"),
		"--wasm-cache-dir=" + cacheDir, "--wasm-cache-max-size=3Mi"})
	exited := make(chan error, 1)
	go func() { exited <- cmd.ExecuteContext(ctx) }()

	waitLine := func(what string, pred func(sessionLine) bool) sessionLine {
		t.Helper()
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			for _, l := range out.sessions(t) {
				if pred(l) {
					return l
				}
			}
		}
		t.Fatalf("no session line with %s; output:\n%s", what, out.String())
		return sessionLine{}
	}
	first := waitLine("four pods bound by draining", func(l sessionLine) bool {
		return l.Plugins["policy"] == digest(draining) && len(l.Binds) == 4
	})
	for pod, node := range first.Binds {
		if node != "node-1" {
			t.Errorf("session %d under draining bound %s to %s", first.Session, pod, node)
		}
	}
	mustWrite(t, module, []byte("not a module"))
	time.Sleep(time.Second) // the broken module is refused; sessions go on
	if n := len(out.sessions(t)); n < first.Session+5 {
		t.Fatalf("only %d sessions after the broken module landed", n)
	}
	for _, l := range out.sessions(t) {
		if l.Plugins["policy"] != digest(draining) {
			t.Fatalf("session %d served by %s, want draining's %s: the broken module was not refused", l.Session, l.Plugins["policy"], digest(draining))
		}
	}

	reloadtest.RenameInto(t, module, binpack)
	moved := waitLine("the pending pods bound by binpack", func(l sessionLine) bool { return len(l.Binds) == 2 })
	if moved.Plugins["policy"] != digest(binpack) {
		t.Errorf("session %d bound the pending pods with module %s, want binpack's %s", moved.Session, moved.Plugins["policy"], digest(binpack))
	}
	for pod, node := range moved.Binds {
		if node != "node-0" {
			t.Errorf("session %d under binpack bound %s to %s, want node-0", moved.Session, pod, node)
		}
	}
	cancel()
	if err := <-exited; err != nil {
		t.Fatalf("simulate --watch ended with %v, want a clean stop", err)
	}
	for i, l := range out.sessions(t) {
		if l.Session != i+1 || l.Cycles != i+1 {
			t.Fatalf("line %d is session %d (cycles %d): want one line per session, in order", i+1, l.Session, l.Cycles)
		}
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale cache entry is still there (%v): the cache was not kept within 3Mi", err)
	}
	var files, size int64
	_ = filepath.WalkDir(cacheDir, func(_ string, d os.DirEntry, err error) error {
		if info, ierr := d.Info(); err == nil && ierr == nil && d.Type().IsRegular() {
			files, size = files+1, size+info.Size()
		}
		return nil
	})
	if files == 0 || size > 3<<20 {
		t.Errorf("the cache holds %d files, %d bytes; want the newest compiled modules within 3Mi", files, size)
	}
}

func TestMalformedCacheSizeIsRefused(t *testing.T) {
	_, err := runCaldera("simulate", "--wasm-cache-max-size=lots", "--cluster=../../examples/clusters/training-cluster.yaml")
	if err == nil || !strings.Contains(err.Error(), `--wasm-cache-max-size "lots"`) {
		t.Fatalf("simulate with --wasm-cache-max-size=lots: %v, want an error naming the flag and the value", err)
	}
}

// sessionLine is one line of simulate --watch --output json.
type sessionLine struct {
	Cycles        int                        `json:"cycles"`
	Binds         map[string]string          `json:"binds"`
	Evictions     []string                   `json:"evictions"`
	PodGroups     map[string]json.RawMessage `json:"podGroups"`
	Unschedulable map[string]string          `json:"unschedulable"`
	Nominated     map[string]string          `json:"nominated"`
	HyperNodes    map[string]string          `json:"hyperNodes"`
	// BindAnnotations is the session's annotations written at bind.
	BindAnnotations map[string]map[string]string `json:"bindAnnotations"`
	// Volumes is the session's claims bound and their volumes; Claims its
	// ResourceClaims written and their devices.
	Volumes map[string]string   `json:"volumes"`
	Claims  map[string][]string `json:"claims"`
	Session int                 `json:"session"`
	Plugins map[string]string   `json:"plugins"`
	// Images is set for the plugins whose module came from a registry.
	Images map[string]string `json:"images"`
}

// lines is an io.Writer the test can read while the command writes.
type lines struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *lines) sessions(t *testing.T) []sessionLine {
	var out []sessionLine
	sc := bufio.NewScanner(strings.NewReader(l.String()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var s sessionLine
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&s); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, s)
	}
	return out
}

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func mustWrite(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
