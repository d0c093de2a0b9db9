package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/scheduler/metrics"
	"github.com/caldera-scheduler/caldera/scheduler/simulator"
	"github.com/caldera-scheduler/caldera/scheduler/simulator/randomcluster"
)

var (
	hostileOnce sync.Once
	hostileDir  string
	hostileErr  error
)

// hostileModule builds runtime/testdata/guests/hostile, a Go SDK module
// that misbehaves in the hooks its arguments name, into a plugin folder.
func hostileModule(t *testing.T) string {
	t.Helper()
	hostileOnce.Do(func() {
		hostileDir, hostileErr = os.MkdirTemp("", "caldera-hostile")
		if hostileErr != nil {
			return
		}
		hostileErr = buildWasm("../../runtime/testdata/guests/hostile", filepath.Join(hostileDir, "hostile.wasm"))
	})
	if hostileErr != nil {
		t.Fatalf("building the hostile module: %v", hostileErr)
	}
	return hostileDir
}

const hostileBase = `actions: "enqueue, allocate, preempt, reclaim, backfill"
tiers:
- plugins: [{name: priority}, {name: gang}, {name: conformance}]
- plugins: [{name: overcommit}, {name: drf}, {name: predicates}, {name: proportion}, {name: nodeorder}]
`

// A module that traps, loops, exhausts its memory, answers hugely or tries
// to leave the sandbox, in any hook, costs a session nothing but itself:
// configured as ignorable, the session completes with exactly the
// decisions of the native plugins, and each failure is counted with the
// plugin, the hook and the cause.
func TestHostileModuleCostsOnlyItself(t *testing.T) {
	dir := hostileModule(t)
	cluster := filepath.Join(t.TempDir(), "cluster.yaml")
	if err := os.WriteFile(cluster, randomcluster.Generate(5), 0o644); err != nil {
		t.Fatal(err)
	}
	conf := func(extra string) string {
		path := filepath.Join(t.TempDir(), "scheduler.yaml")
		if err := os.WriteFile(path, []byte(hostileBase+extra), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	want := runSimulate(t, "--cluster", cluster, "--scheduler-conf", conf(""), "--plugin-dir", dir)
	if len(want.Binds) == 0 {
		t.Fatal("the native run binds nothing; the comparison would prove nothing")
	}
	cases := []struct{ hook, mode, cause string }{
		{"predicate_batch", "loop", "timeout"},
		{"all", "grow", "memory"},
		{"all", "escape", "trap"},
		{"job_order_keys", "huge", "reply"},
		{"node_order_batch", "huge", "reply"},
	}
	// The hooks this cluster's sessions call (it has one queue, no PodGroup
	// waiting for admission and nothing to preempt, so queue order,
	// admission and preemption hooks are not asked).
	for _, hook := range []string{"session_open", "session_close", "job_order_keys", "task_order_keys",
		"pre_predicate", "predicate_batch", "node_order_batch", "job_valid",
		"job_ready", "overused", "allocatable"} {
		cases = append(cases, struct{ hook, mode, cause string }{hook, "trap", "trap"})
	}
	// The escape attempt dials this listener; nothing may arrive.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var dialed atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			dialed.Add(1)
			c.Close()
		}
	}()
	for _, c := range cases {
		t.Run(c.hook+"/"+c.mode, func(t *testing.T) {
			failures := func() float64 {
				total := 0.0
				for _, h := range abiHooks() {
					total += testutil.ToFloat64(metrics.PluginCallFailures.WithLabelValues("hostile", h, c.cause))
				}
				return total
			}
			before := failures()
			// 128 MiB lets a huge reply be built, so that the host's reply
			// limit (16 MiB) is what stops it.
			pages := 512
			if c.mode == "huge" {
				pages = 2048
			}
			got := runSimulate(t, "--cluster", cluster, "--plugin-dir", dir, "--scheduler-conf", conf(fmt.Sprintf(
				"- plugins: [{name: hostile, arguments: {hostile.hook: %s, hostile.mode: %s, hostile.dial: %q, hostile.minNodes: 3, wasm.ignorable: true, wasm.callTimeout: 2s, wasm.memoryLimitPages: %d}}]\n",
				c.hook, c.mode, ln.Addr().String(), pages)))
			if !reflect.DeepEqual(want, got) {
				t.Errorf("decisions changed:\nnative  %+v\nhostile %+v", want, got)
			}
			if after := failures(); after <= before {
				t.Errorf("no %s failure counted for plugin hostile", c.cause)
			}
			if n := dialed.Load(); n > 0 {
				t.Errorf("the module reached a socket on the host %d times", n)
			}
		})
	}
}

// Not ignorable, a module failing every call still lets the session finish,
// and fails safe: nothing is placed on its say-so.
func TestFailingModuleFailsSafe(t *testing.T) {
	dir := hostileModule(t)
	cluster := filepath.Join(t.TempDir(), "cluster.yaml")
	if err := os.WriteFile(cluster, randomcluster.Generate(5), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "scheduler.yaml")
	if err := os.WriteFile(path, []byte(hostileBase+"- plugins: [{name: hostile, arguments: {hostile.hook: all, hostile.mode: trap, hostile.minNodes: 3}}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := runSimulate(t, "--cluster", cluster, "--scheduler-conf", path, "--plugin-dir", dir)
	if len(got.Binds) != 0 || len(got.Evictions) != 0 {
		t.Errorf("a module that fails every call let %d binds and %d evictions through", len(got.Binds), len(got.Evictions))
	}
}

// A module whose job_ready fails keeps every gang from binding; each pod
// left unbound is still listed among the unschedulable ones with a reason,
// those a kept statement allocated as Volcano words them ("can possibly be
// assigned to <node>, once minAvailable is satisfied").
func TestFailedJobReadyListsEveryUnboundPod(t *testing.T) {
	dir := hostileModule(t)
	data := randomcluster.Generate(5)
	cluster := filepath.Join(t.TempDir(), "cluster.yaml")
	if err := os.WriteFile(cluster, data, 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "scheduler.yaml")
	if err := os.WriteFile(path, []byte(hostileBase+"- plugins: [{name: hostile, arguments: {hostile.hook: job_ready, hostile.mode: trap, hostile.minNodes: 3}}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := runSimulate(t, "--cluster", cluster, "--scheduler-conf", path, "--plugin-dir", dir)
	parsed, err := simulator.ParseCluster(data, cluster)
	if err != nil {
		t.Fatal(err)
	}
	schedulable := 0
	for _, p := range parsed.Pods {
		key := p.Namespace + "/" + p.Name
		if _, bound := got.Binds[key]; bound || p.Spec.NodeName != "" {
			continue
		}
		reason, listed := got.Unschedulable[key]
		if !listed || reason == "" {
			t.Errorf("%s: unbound and not listed among the unschedulable pods (listed: %v, reason %q)", key, listed, reason)
		}
		if strings.Contains(reason, "once minAvailable is satisfied") {
			schedulable++
		}
	}
	if schedulable == 0 {
		t.Error("no unbound pod says it could be assigned once minAvailable is satisfied: the kept statements' pods were not listed")
	}
}

// abiHooks names every hook of the ABI.
func abiHooks() []string {
	var out []string
	for h := abi.Hook(1); h <= 64; h++ {
		if _, ok := abi.HookByName(h.String()); ok {
			out = append(out, h.String())
		}
	}
	return out
}

// A failure destroys the instance holding the session's view; the next
// call reopens the session on a fresh instance, at most 3 times a session
// (docs/abi.md, section 5). A module that traps in every job_order_keys
// call traps exactly 4 times in one session (on the first instance and on
// 3 reopened ones) and is then not called again.
func TestFailedInstanceReopensSession(t *testing.T) {
	dir := hostileModule(t)
	cluster := filepath.Join(t.TempDir(), "cluster.yaml")
	if err := os.WriteFile(cluster, randomcluster.Generate(5), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "scheduler.yaml")
	if err := os.WriteFile(path, []byte(hostileBase+"- plugins: [{name: hostile, arguments: {hostile.hook: job_order_keys, hostile.mode: trap, hostile.minNodes: 3}}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	traps := func() float64 {
		return testutil.ToFloat64(metrics.PluginCallFailures.WithLabelValues("hostile", "job_order_keys", "trap"))
	}
	opens := func() float64 {
		return testutil.ToFloat64(metrics.PluginCalls.WithLabelValues("hostile", "session_open"))
	}
	trapsBefore, opensBefore := traps(), opens()
	runSimulate(t, "--cluster", cluster, "--scheduler-conf", path, "--plugin-dir", dir, "--cycles", "1")
	if got := traps() - trapsBefore; got != 4 {
		t.Errorf("%.0f traps in job_order_keys, want 4 (first instance and 3 reopened)", got)
	}
	if got := opens() - opensBefore; got < 4 {
		t.Errorf("%.0f session_open calls, want at least 4 (the session and 3 reopens)", got)
	}
}
