package usage

import (
	"math"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/testutil"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// sessionStart is the fixed clock of these tests.
var sessionStart = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// openSession opens a session of one pending pod on nodes n1..nN with the
// plugin configured by the YAML lines of entry, and gives node i the usage
// usages[i] (nil: none).
func openSession(t *testing.T, entry string, usages ...*api.NodeUsage) (*framework.Session, *api.TaskInfo) {
	t.Helper()
	now = func() time.Time { return sessionStart }
	t.Cleanup(func() { now = time.Now })
	var nodes []*v1.Node
	for i := range usages {
		nodes = append(nodes, testutil.Node("n"+string(rune('1'+i)), testutil.Res("cpu", "4", "memory", "8Gi", "pods", "10")))
	}
	pod := testutil.GroupPod("p1", "", testutil.Res("cpu", "1", "memory", "1Gi"))
	cfg := "actions: \"allocate\"\ntiers:\n- plugins:\n  - name: usage\n" + entry
	reg := testutil.Registry(t, map[string]framework.Factory{Name: New})
	// Usage is set on the snapshot's nodes before the session opens, as the
	// cache sets it before taking the snapshot.
	ssn := testutil.OneJobSession(t, reg, cfg, nodes, []*v1.Pod{pod})
	for i, u := range usages {
		ssn.Nodes[nodes[i].Name].SetUsage(u)
	}
	return ssn, testutil.TaskNamed(ssn, "p1")
}

func measured(ago time.Duration, cpu, mem float64) *api.NodeUsage {
	return api.NewNodeUsage(sessionStart.Add(-ago), cpu, mem)
}

const volcanoArgs = `    arguments:
      usage.weight: 5
      cpu.weight: 1
      memory.weight: 1
      thresholds:
        cpu: 80
        mem: 80
`

// Volcano v1.15's usage_test.go TestUsage_predicateFn, every case (one node
// each), and the edges of freshness and of a missing measure.
func TestPredicate(t *testing.T) {
	zeroTime := &api.NodeUsage{CPUUsageAvg: map[string]float64{api.UsagePeriod: 90}, MemoryUsageAvg: map[string]float64{api.UsagePeriod: 81}}
	cases := []struct {
		name  string
		usage *api.NodeUsage
		want  string // "" passes
	}{
		{"The node cannot be scheduled, because of the CPU load of the node exceeds the upper limit.", measured(0, 81, 60), ReasonCPU},
		{"The node cannot be scheduled, because of the memory load of the node exceeds the upper limit.", measured(0, 60, 81), ReasonMemory},
		{"The node can be scheduled, because of the CPU usage and memory usage do not exceed the upper limit.", measured(0, 80, 79), ""},
		{"The node can be scheduled, because of the metrics are not updated in the latest 5 minutes, and the usage function is invalid.", measured(6*time.Minute, 90, 81), ""},
		{"The node can be scheduled, because of the metric time is in the initial state, and the usage function is invalid.", zeroTime, ""},
		{"both over: the CPU reason", measured(0, 95, 95), ReasonCPU},
		{"measured exactly five minutes before the session: still counts", measured(MetricsActiveTime, 81, 0), ReasonCPU},
		{"no measure", nil, ""},
		{"no value for the period", &api.NodeUsage{MetricsTime: sessionStart}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ssn, task := openSession(t, volcanoArgs, c.usage)
			st := ssn.PredicateFn(task, ssn.Nodes["n1"])
			if c.want == "" {
				if !st.IsSuccess() {
					t.Fatalf("status %v %q, want success", st.Code, st.Message())
				}
				return
			}
			if st == nil || st.Code != framework.UnschedulableAndUnresolvable || st.Message() != c.want || st.Plugin != Name {
				t.Fatalf("status %+v, want UnschedulableAndUnresolvable %q from %s", st, c.want, Name)
			}
		})
	}
}

// Volcano v1.15's usage_test.go TestUsage_nodeOrderFn, both cases: five
// nodes, two of them with measures too old or never taken.
func TestNodeOrder(t *testing.T) {
	usages := []*api.NodeUsage{
		measured(0, 30, 50), measured(0, 60, 50), measured(0, 60, 80),
		measured(6*time.Minute, 10, 20), {CPUUsageAvg: map[string]float64{api.UsagePeriod: 0}, MemoryUsageAvg: map[string]float64{api.UsagePeriod: 0}},
	}
	cases := []struct {
		name  string
		entry string
		want  []float64
	}{
		{"Node scoring in the default weight configuration scenario.", volcanoArgs, []float64{300, 225, 150, 0, 0}},
		{"Node scoring gives priority to memory resources", strings.NewReplacer("cpu.weight: 1", "cpu.weight: 2", "memory.weight: 1", "memory.weight: 8").Replace(volcanoArgs), []float64{270, 240, 120, 0, 0}},
		{"defaults are Volcano's", "", []float64{300, 225, 150, 0, 0}},
		{"enableNodeOrder: false", "    enableNodeOrder: false\n", []float64{0, 0, 0, 0, 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ssn, task := openSession(t, c.entry, usages...)
			for i, want := range c.want {
				node := ssn.NodeList[i]
				got, err := ssn.NodeOrderFn(task, node)
				if err != nil || math.Abs(got-want) > 1e-8 {
					t.Errorf("%s: score %v (%v), want %v", node.Name, got, err, want)
				}
			}
		})
	}
}

// enablePredicate: false lets a task onto a node over its thresholds, as
// Volcano's documentation suggests for scoring by load alone.
func TestPredicateDisabled(t *testing.T) {
	ssn, task := openSession(t, "    enablePredicate: false\n", measured(0, 99, 99))
	if st := ssn.PredicateFn(task, ssn.Nodes["n1"]); !st.IsSuccess() {
		t.Fatalf("status %v %q, want success with enablePredicate: false", st.Code, st.Message())
	}
}

func TestArguments(t *testing.T) {
	ok := []struct {
		args framework.Arguments
		want args
	}{
		{nil, args{5, 1, 1, 80, 80}},
		{framework.Arguments{"usage.weight": 2, "cpu.weight": 0, "memory.weight": 3, "thresholds": map[string]any{"cpu": 70, "mem": 90}}, args{2, 0, 3, 70, 90}},
		{framework.Arguments{"thresholds": map[string]any{"mem": 60}}, args{5, 1, 1, 80, 60}},
		{framework.Arguments{"thresholds": map[string]any{"cpu": nil}, "usage.weight": nil}, args{5, 1, 1, 80, 80}},
	}
	for _, c := range ok {
		p, err := New(c.args)
		if err != nil {
			t.Errorf("New(%v): %v", c.args, err)
			continue
		}
		if got := p.(*Plugin).args; got != c.want {
			t.Errorf("New(%v): %+v, want %+v", c.args, got, c.want)
		}
	}
	bad := []struct {
		args framework.Arguments
		want string
	}{
		{framework.Arguments{"usage.wieght": 5}, `unknown arguments ["usage.wieght"]`},
		{framework.Arguments{"cpu.weight": "heavy"}, `argument "cpu.weight": expected an integer`},
		{framework.Arguments{"cpu.weight": 0, "memory.weight": 0}, `their sum is the score's divisor and must not be 0`},
		{framework.Arguments{"thresholds": 80}, `argument "thresholds": expected a mapping`},
		{framework.Arguments{"thresholds": map[string]any{"cpu": 80.5}}, `argument "thresholds.cpu": expected a whole percentage such as 80, got float64 80.5`},
		{framework.Arguments{"thresholds": map[string]any{"mem": "70"}}, `argument "thresholds.mem": expected a whole percentage`},
		{framework.Arguments{"thresholds": map[string]any{"memory": 70}}, `unknown arguments ["thresholds.memory"]`},
	}
	for _, c := range bad {
		if _, err := New(c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%v): error %v, want it to contain %q", c.args, err, c.want)
		}
	}
}
