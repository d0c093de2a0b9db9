package simulator

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/conf"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

func annotatedNode(name, usage string) string {
	return "apiVersion: v1\nkind: Node\nmetadata:\n  name: " + name + "\n  annotations: {caldera.sh/node-usage: '" + usage + "'}\nstatus: {allocatable: {cpu: \"4\"}}\n"
}

func TestNodeUsageAnnotationErrorsNameTheNode(t *testing.T) {
	for name, tc := range map[string]struct{ usage, want string }{
		"not JSON":      {"cpu=85,memory=40", `invalid character 'c' looking for beginning of value`},
		"a number":      {"85", "cannot unmarshal number into Go value"},
		"memory absent": {`{"cpu": 85}`, `"memory" is missing`},
		"unknown key":   {`{"cpu": 85, "memory": 40, "disk": 10}`, `unknown field "disk"`},
		"a string":      {`{"cpu": "85", "memory": 40}`, "cannot unmarshal string"},
		"over 100":      {`{"cpu": 120, "memory": 40}`, `"cpu" is 120, not a percentage from 0 to 100`},
		"negative":      {`{"cpu": 10, "memory": -1}`, `"memory" is -1, not a percentage`},
		"two values":    {`{"cpu": 1, "memory": 1} {}`, "more than one JSON value"},
		"bad age":       {`{"cpu": 1, "memory": 1, "age": "6 minutes"}`, `"age" is "6 minutes", not a duration of at least 0`},
		"negative age":  {`{"cpu": 1, "memory": 1, "age": "-1m"}`, `"age" is "-1m"`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseCluster([]byte(annotatedNode("busy", tc.usage)), "c.yaml")
			prefix := "c.yaml: document 1 (Node busy): metadata.annotations[caldera.sh/node-usage]: "
			if err == nil || !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), tc.want) ||
				!strings.Contains(err.Error(), `expected a JSON object such as {"cpu": 85, "memory": 40} (percentages; an "age" such as "6m" may follow)`) {
				t.Fatalf("error = %v, want %q ... %q", err, prefix, tc.want)
			}
		})
	}
}

// usageRecorder is a test plugin that notes the usage each session's
// nodes carry.
type usageRecorder struct {
	mu   *sync.Mutex
	seen *[]map[string]*api.NodeUsage
}

func (usageRecorder) Name() string { return "recorder" }

func (r usageRecorder) OnSessionOpen(ssn *framework.Session) {
	m := map[string]*api.NodeUsage{}
	for _, n := range ssn.NodeList {
		m[n.Name] = n.Usage
	}
	r.mu.Lock()
	*r.seen = append(*r.seen, m)
	r.mu.Unlock()
}

func (usageRecorder) OnSessionClose(*framework.Session) {}

// Every session sees an annotated node's usage as measured at its start,
// or age before it; a node without the annotation has none.
func TestNodeUsageFromTheAnnotation(t *testing.T) {
	c, err := ParseCluster([]byte(annotatedNode("busy", `{"cpu": 85, "memory": 40.5}`)+"---\n"+annotatedNode("old", `{"cpu": 1, "memory": 2, "age": "6m"}`)+"---\n"+
		"apiVersion: v1\nkind: Node\nmetadata: {name: idle}\nstatus: {allocatable: {cpu: \"4\"}}\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []map[string]*api.NodeUsage
	reg := framework.NewRegistry()
	_ = reg.Register("recorder", func(framework.Arguments) (framework.Plugin, error) { return usageRecorder{&mu, &seen}, nil })
	cfg, err := conf.Parse([]byte("actions: admitall\ntiers:\n- plugins:\n  - name: recorder\nmetrics:\n  type: prometheus\n  address: http://127.0.0.1:1\n"), "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	if _, err := Run(context.Background(), Options{Cluster: c, Config: cfg, Plugins: reg, Actions: testActions(), Cycles: 2}); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 {
		t.Fatalf("%d sessions recorded, want 2", len(seen))
	}
	var last time.Time
	for i, m := range seen {
		u := m["busy"]
		if u == nil || u.CPUUsageAvg[api.UsagePeriod] != 85 || u.MemoryUsageAvg[api.UsagePeriod] != 40.5 {
			t.Fatalf("session %d: busy has %+v, want cpu 85, memory 40.5", i+1, u)
		}
		if u.MetricsTime.Before(before) || !u.MetricsTime.After(last) {
			t.Errorf("session %d: measured at %v, want after the run started and after the last session's", i+1, u.MetricsTime)
		}
		last = u.MetricsTime
		if old := m["old"]; old == nil || !old.MetricsTime.Equal(u.MetricsTime.Add(-6*time.Minute)) {
			t.Errorf("session %d: old has %+v, want it measured six minutes before busy", i+1, old)
		}
		if m["idle"] != nil {
			t.Errorf("session %d: idle has usage %+v, want none", i+1, m["idle"])
		}
	}
}
