package reservations

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	vcfake "volcano.sh/apis/pkg/client/clientset/versioned/fake"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/caldera-scheduler/caldera/scheduler/cache"
	"github.com/caldera-scheduler/caldera/scheduler/metrics"
)

func TestParse(t *testing.T) {
	got, err := parse([]byte("# comment\n\n{\"node\": \"n1\", \"cpu\": \"4\", \"memory\": \"8Gi\"}\n{\"node\": \"n1\", \"cpu\": 2}\n{\"node\": \"n2\", \"nvidia.com/gpu\": \"1\"}\n"))
	if err != nil {
		t.Fatal(err)
	}
	cpu, mem, gpu := got["n1"][v1.ResourceCPU], got["n1"][v1.ResourceMemory], got["n2"]["nvidia.com/gpu"]
	if len(got) != 2 || cpu.Value() != 6 || mem.Value() != 8<<30 || gpu.Value() != 1 {
		t.Errorf("parse: %v", got)
	}
	for text, want := range map[string]string{
		"{\"cpu\": \"4\"}":                    `line 1: "node" must name a node`,
		"\n{\"node\": \"n1\"}":                "line 2: node n1: no resources",
		"{\"node\": \"n1\", \"cpu\": \"x\"}":  `cpu: "x" is not a quantity`,
		"{\"node\": \"n1\", \"cpu\": \"-1\"}": "cpu is negative",
		"{\"node\": \"n1\", \"cpu\": true}":   `cpu must be a quantity such as "4" or "8Gi"`,
		"node=n1":                             "line 1: not a JSON object",
	} {
		if _, err := parse([]byte(text)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parse(%q) = %v, want an error containing %q", text, err, want)
		}
	}
}

// The informer feeds the cache: what the file reserves is taken off the
// node, a changed file is followed (also when renamed over, as editors and
// ConfigMap volumes do), and a broken file keeps the last good
// reservations.
func TestFileFollowsChanges(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "reservations.jsonl")
	write := func(text string) {
		tmp := filepath.Join(dir, ".tmp")
		if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, file); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"node": "n1", "cpu": "6"}` + "\n")
	config := filepath.Join(dir, "handler.yaml")
	if err := os.WriteFile(config, []byte("informers:\n- name: external-reservations\n  config: {path: "+file+", debounce: 10ms, resync: 1h}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	reg := cache.NewRegistry()
	Register(reg)
	handlerFile, err := cache.ReadHandlerFile(config)
	if err != nil {
		t.Fatal(err)
	}
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Status: v1.NodeStatus{Allocatable: v1.ResourceList{
		v1.ResourceCPU: resource.MustParse("8"), v1.ResourcePods: resource.MustParse("110")}}}
	c, err := cache.New(cache.Options{Client: k8sfake.NewSimpleClientset(node), VCClient: vcfake.NewSimpleClientset(),
		Registry: reg, EventHandlerConfig: handlerFile})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := c.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if !c.WaitForCacheSync(ctx) {
		t.Fatal("no sync")
	}
	idle := func() float64 { return c.Snapshot().Nodes["n1"].Idle.MilliCPU }
	if got := idle(); got != 2000 {
		t.Fatalf("after sync n1 has %v milli-CPU idle, want 2000: the reservation must be there before the first session", got)
	}
	waitFor := func(what string, want float64) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if idle() == want {
				return
			}
		}
		t.Fatalf("%s: n1 idle %v, want %v", what, idle(), want)
	}
	write(`{"node": "n1", "cpu": "3"}` + "\n")
	waitFor("reservation lowered", 5000)

	before := testutil.ToFloat64(metrics.CustomInformerErrors.WithLabelValues(Name))
	write(`{"node": "n1", "cpu": "lots"}` + "\n")
	for deadline := time.Now().Add(5 * time.Second); testutil.ToFloat64(metrics.CustomInformerErrors.WithLabelValues(Name)) == before; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the broken file was not counted as an error")
		}
	}
	if got := idle(); got != 5000 {
		t.Errorf("after a broken file n1 idle %v, want the last good 5000", got)
	}
	write("# nothing reserved\n")
	waitFor("reservation removed", 8000)
}

func TestConfigErrors(t *testing.T) {
	for config, want := range map[string]string{
		``:                                  "path is required",
		`{"path": "/nonexistent/file"}`:     "no such file or directory",
		`{"path": "x", "every": "1s"}`:      `unknown field "every"`,
		`{"path": "x", "debounce": "soon"}`: "a duration",
		`{"path": "x", "resync": "-1s"}`:    "must be positive",
	} {
		_, err := New(cache.InformerContext{Name: Name, Config: []byte(config)})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("config %s: %v, want an error containing %q", config, err, want)
		}
	}
}
