package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/caldera-scheduler/caldera/scheduler/metrics"
)

const reservedExample = "../../examples/eventhandlers/external-reserved"

// The example handler takes node-a's annotated 6 CPUs off its allocatable:
// the pods that fitted there no longer do, whichever toolchain built it.
func TestEventHandlerChangesPlacement(t *testing.T) {
	cluster := filepath.Join(reservedExample, "cluster.yaml")
	plain := runSimulate(t, "--cluster", cluster)
	if len(plain.Binds) != 3 {
		t.Fatalf("default handler: %d binds, want all 3: %+v", len(plain.Binds), plain.Binds)
	}
	for _, build := range []string{"tinygo", "go", "rust"} {
		t.Run(build, func(t *testing.T) {
			module := "external-reserved." + build
			requirePorts(t, module)
			got := runSimulate(t, "--cluster", cluster, "--plugin-dir", pluginDir, "--event-handler", module)
			want := map[string]string{"default/web-1": "node-b", "default/web-2": "node-b"}
			if !reflect.DeepEqual(got.Binds, want) {
				t.Errorf("binds %v, want %v (node-a has 2 CPUs left)", got.Binds, want)
			}
			if r := got.Unschedulable["default/web-3"]; !strings.Contains(r, "Insufficient cpu") {
				t.Errorf("web-3 pending because %q, want Insufficient cpu", r)
			}
		})
	}
}

// The external-reservations informer takes what the file reserves on
// node-b off its allocatable.
func TestCustomInformerChangesPlacement(t *testing.T) {
	dir := t.TempDir()
	reservations := filepath.Join(dir, "reservations.jsonl")
	data, err := os.ReadFile(filepath.Join(reservedExample, "reservations.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, reservations, data)
	config := filepath.Join(dir, "handler.yaml")
	mustWrite(t, config, []byte("informers:\n- name: external-reservations\n  config: {path: "+reservations+"}\n"))
	// Without the annotation's reservation on node-a, only the file's on
	// node-b counts.
	cluster := filepath.Join(dir, "cluster.yaml")
	orig, err := os.ReadFile(filepath.Join(reservedExample, "cluster.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, cluster, []byte(strings.Replace(string(orig), "caldera.sh/external-reserved: cpu=6", "note: none", 1)))
	got := runSimulate(t, "--cluster", cluster, "--event-handler-config", config)
	want := map[string]string{"default/web-1": "node-a", "default/web-2": "node-a"}
	if !reflect.DeepEqual(got.Binds, want) {
		t.Errorf("binds %v, want %v (node-b has 2 CPUs left)", got.Binds, want)
	}
}

// Wrong names and broken files stop the command with an error that says
// what is wrong, before anything is scheduled.
func TestEventHandlerFlagErrors(t *testing.T) {
	dir := t.TempDir()
	cluster := filepath.Join(reservedExample, "cluster.yaml")
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		mustWrite(t, p, []byte(text))
		return p
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--event-handler", "nosuch", "--plugin-dir", dir}, `--event-handler "nosuch": not a registered handler (registered: default), and ` + filepath.Join(dir, "nosuch.wasm")},
		{[]string{"--event-handler-config", write("unknown.yaml", "informer: []\n")}, `unknown field "informer"`},
		{[]string{"--event-handler-config", write("noinformer.yaml", "informers: [{name: vms}]\n")}, `no custom informer "vms" (registered: external-reservations)`},
		{[]string{"--event-handler-config", write("nopath.yaml", "informers: [{name: external-reservations}]\n")}, "custom informer external-reservations: config: path is required"},
		{[]string{"--event-handler-config", write("badfile.yaml", "informers: [{name: external-reservations, config: {path: "+write("bad.jsonl", "{\"node\": \"n1\", \"cpu\": \"lots\"}\n")+"}}]\n")}, `bad.jsonl: line 1: node n1: cpu: "lots" is not a quantity`},
		{[]string{"--event-handler-config", write("defaultcfg.yaml", "handler: {failurePolicy: Fail}\n")}, "the default event handler takes no configuration"},
	}
	if _, err := os.Stat(filepath.Join(pluginDir, "binpack.tinygo.wasm")); err == nil {
		cases = append(cases, struct {
			args []string
			want string
		}{[]string{"--event-handler", "binpack.tinygo", "--plugin-dir", pluginDir}, "module binpack.tinygo does not declare the hook cache_event: it is not an event handler"})
	}
	if _, err := os.Stat(filepath.Join(pluginDir, "external-reserved.tinygo.wasm")); err == nil {
		cases = append(cases, struct {
			args []string
			want string
		}{[]string{"--event-handler", "external-reserved.tinygo", "--plugin-dir", pluginDir, "--event-handler-config", write("policy.yaml", "handler: {failurePolicy: Sometimes}\n")}, `handler.failurePolicy: expected Ignore or Fail, got "Sometimes"`})
	}
	for _, c := range cases {
		_, err := runCaldera(append([]string{"simulate", "--cluster", cluster}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error containing %q", c.args, err, c.want)
		}
	}
}

// A handler module that fails on every event costs the cluster nothing
// under failurePolicy Ignore (every event is recorded as it came) and keeps
// everything out under Fail; every failure is counted. One that drops
// every event leaves the scheduler with nothing to schedule, and the
// simulator still finishes.
func TestFailingEventHandler(t *testing.T) {
	dir := hostileModule(t)
	cluster := filepath.Join(reservedExample, "cluster.yaml")
	want := runSimulate(t, "--cluster", cluster)
	config := func(policy, mode string) string {
		p := filepath.Join(t.TempDir(), "handler.yaml")
		mustWrite(t, p, []byte(fmt.Sprintf("handler:\n  failurePolicy: %s\n  arguments: {hostile.hook: cache_event, hostile.mode: %s}\n", policy, mode)))
		return p
	}
	failures := func(fallback string) float64 {
		total := 0.0
		for _, kind := range []string{"Pod", "Node", "Queue", "PodGroup", "PriorityClass"} {
			total += testutil.ToFloat64(metrics.EventHandlerFailures.WithLabelValues("hostile", kind, fallback))
		}
		return total
	}
	for _, c := range []struct {
		policy, mode, fallback string
		binds                  int
	}{
		{"Ignore", "trap", "default", len(want.Binds)},
		{"Ignore", "badadjust", "default", len(want.Binds)},
		{"Fail", "trap", "drop", 0},
		{"Ignore", "drop", "", 0},
	} {
		t.Run(c.policy+"/"+c.mode, func(t *testing.T) {
			before := failures(c.fallback)
			got := runSimulate(t, "--cluster", cluster, "--plugin-dir", dir, "--event-handler", "hostile", "--event-handler-config", config(c.policy, c.mode))
			if len(got.Binds) != c.binds {
				t.Errorf("%d binds, want %d: %+v", len(got.Binds), c.binds, got.Binds)
			}
			if c.binds > 0 && !reflect.DeepEqual(got.Binds, want.Binds) {
				t.Errorf("binds %v, want the default handler's %v", got.Binds, want.Binds)
			}
			if c.fallback == "" {
				return
			}
			// Five objects (2 nodes, 3 pods) and the default queue at least.
			if n := failures(c.fallback) - before; n < 6 {
				t.Errorf("%v failures counted with fallback %s, want at least 6", n, c.fallback)
			}
		})
	}
}
