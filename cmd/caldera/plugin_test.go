package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func runCaldera(args ...string) (string, error) {
	cmd := newRootCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

func TestPluginInspectAndValidate(t *testing.T) {
	requirePorts(t, "binpack.tinygo")
	path := filepath.Join(pluginDir, "binpack.tinygo.wasm")
	out, err := runCaldera("plugin", "inspect", path)
	if err != nil || !strings.Contains(out, "name:      binpack") || !strings.Contains(out, "abi:       1.") || !strings.Contains(out, "node_order_batch") {
		t.Errorf("inspect: %v\n%s", err, out)
	}
	if !strings.Contains(out, "promises:  deltas, undoEvents\n") || !strings.Contains(out, "binpack.resources.<name> (int, default 1)") {
		t.Errorf("inspect shows no promises or arguments:\n%s", out)
	}
	out, err = runCaldera("plugin", "inspect", "--output", "json", path)
	var info moduleInfo
	if err != nil || json.Unmarshal([]byte(out), &info) != nil || info.Name != "binpack" || !slices.Equal(info.Promises, []string{"deltas", "undoEvents"}) || len(info.Arguments) != 5 {
		t.Errorf("inspect --output json: %v\n%s", err, out)
	}
	out, err = runCaldera("plugin", "validate", path)
	if err != nil || !strings.Contains(out, "3 of 3 pods bound") {
		t.Errorf("validate: %v\n%s", err, out)
	}
	// With a configuration and a cluster: the tier entry's arguments, the
	// cluster's pending pods.
	conf := filepath.Join(t.TempDir(), "scheduler.yaml")
	write := func(weight string) {
		text := "actions: allocate\ntiers:\n- plugins: [{name: binpack.tinygo, arguments: {binpack.weight: " + weight + "}}]\n"
		if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("5")
	out, err = runCaldera("plugin", "validate", "--scheduler-conf", conf, "--cluster", "../../examples/clusters/training-cluster.yaml", path)
	if err != nil || !regexp.MustCompile(`self-test: one session on \.\./\.\./examples/clusters/training-cluster\.yaml, \d+ calls answered, \d+ of 120 pods bound`).MatchString(out) {
		t.Errorf("validate --cluster: %v\n%s", err, out)
	}
	write("heavy")
	_, err = runCaldera("plugin", "validate", "--scheduler-conf", conf, path)
	if err == nil || !strings.Contains(err.Error(), `argument "binpack.weight": expected an integer, got string heavy`) || !strings.Contains(err.Error(), conf) {
		t.Errorf("validate with a wrong argument type: %v", err)
	}
}

func TestPluginValidateRejectsBadFiles(t *testing.T) {
	dir := t.TempDir()
	notWasm := filepath.Join(dir, "script.wasm")
	_ = os.WriteFile(notWasm, []byte("#!/bin/sh\n"), 0o644)
	for _, tc := range []struct{ path, want string }{
		{notWasm, "not a valid Wasm module"},
		{filepath.Join(dir, "missing.wasm"), "no such file"},
		{filepath.Join(dir, "policy.so"), "expected a .wasm file"},
	} {
		if _, err := runCaldera("plugin", "validate", tc.path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("validate %s: %v, want %q", filepath.Base(tc.path), err, tc.want)
		}
	}
}

// `caldera plugin call` asks one hook through the scheduler's dispatch and
// prints each answer: the predicates port's verdict per pod and node, the
// binpack port's scores under --arg, and clear errors for what it cannot
// ask.
func TestPluginCallAnswersPerPodAndNode(t *testing.T) {
	requirePorts(t, "predicates.tinygo", "binpack.tinygo")
	cluster := "../../testdata/scenarios/volcano/alloc-node-selector-mismatch/cluster.yaml"
	predicates := filepath.Join(pluginDir, "predicates.tinygo.wasm")
	out, err := runCaldera("plugin", "call", "--wasm-cache-dir", "", predicates, "predicate_batch", "--cluster", cluster, "--output", "json")
	var got struct {
		Hook    string
		Answers []answer
	}
	if err != nil || json.Unmarshal([]byte(out), &got) != nil {
		t.Fatalf("call: %v\n%s", err, out)
	}
	want := []answer{
		{Pod: "c1/p1", Node: "n1", Answer: "fail: node(s) didn't match Pod's node affinity/selector"},
		{Pod: "c1/p2", Node: "n1", Answer: "pass"},
	}
	if got.Hook != "predicate_batch" || fmt.Sprint(got.Answers) != fmt.Sprint(want) {
		t.Errorf("answers = %+v, want %+v", got.Answers, want)
	}
	binpack := filepath.Join(pluginDir, "binpack.tinygo.wasm")
	scores := func(args ...string) string {
		out, err := runCaldera(append([]string{"plugin", "call", "--wasm-cache-dir", "", binpack, "node_order_batch", "--cluster", cluster, "--pod", "c1/p2"}, args...)...)
		if err != nil {
			t.Fatalf("call %v: %v", args, err)
		}
		return out
	}
	if off, on := scores("--arg", "binpack.weight=0"), scores("--arg", "binpack.weight=5"); !strings.Contains(off, "c1/p2  n1    0\n") || off == on {
		t.Errorf("binpack.weight=0 scored:\n%s\nbinpack.weight=5 scored:\n%s", off, on)
	}
	for args, want := range map[string]string{
		binpack + " session_close":                         `hook "session_close": plugin call asks`,
		binpack + " victim_tasks":                          "does not declare hook victim_tasks",
		binpack + " job_ready":                             "does not declare hook job_ready",
		binpack + " node_order_batch --pod c1/p9":          "--pod c1/p9: no such pending pod",
		binpack + " node_order_batch --arg binpack.weight": `--arg "binpack.weight": expected key=value`,
	} {
		_, err := runCaldera(append([]string{"plugin", "call", "--wasm-cache-dir", "", "--cluster", cluster}, strings.Fields(args)...)...)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("call %s: %v, want %q", args, err, want)
		}
	}
}

// The hooks that choose among candidates are asked with the candidates the
// help names: proportion's reclaimable with the running pods of the other
// queue, which is over its share, and its allocatable in the pod's queue;
// the priority port's preemptable says which of another job's lower
// priority pods it gives up.
func TestPluginCallAsksCandidateHooks(t *testing.T) {
	requirePorts(t, "proportion.tinygo", "priority.tinygo")
	reclaim := "../../testdata/scenarios/volcano/reclaim-overused-queue/cluster.yaml"
	preempt := "../../testdata/scenarios/volcano/preempt-one-task-other-job/cluster.yaml"
	for _, tc := range []struct{ module, hook, cluster, want string }{
		{"proportion", "reclaimable", reclaim, "c1/preemptor1  victims [c1/preemptee1] of 3 candidates\n"},
		{"proportion", "allocatable", reclaim, "q2     c1/preemptor1  true\n"},
		{"priority", "preemptable", preempt, "c1/preemptor1  victims [c1/preemptee1 c1/preemptee2] of 2 candidates\n"},
	} {
		out, err := runCaldera("plugin", "call", "--wasm-cache-dir", "", filepath.Join(pluginDir, tc.module+".tinygo.wasm"), tc.hook, "--cluster", tc.cluster)
		if err != nil || !strings.Contains(out, tc.want) {
			t.Errorf("%s %s: %v, want a line %q in\n%s", tc.module, tc.hook, err, tc.want, out)
		}
	}
}
