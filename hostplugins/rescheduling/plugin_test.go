package rescheduling

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/testutil"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// lnuArgs is lowNodeUtilization with low thresholds 20% and targets 50%
// for both CPU and memory, measured over the period the sources measure.
var lnuArgs = `    arguments:
      interval: 1ns
      metricsPeriod: 10m
      strategies:
      - name: lowNodeUtilization
        params:
          thresholds: {cpu: 20, memory: 20}
          targetThresholds: {cpu: 50, memory: 50}
`

// cluster is three 10-CPU nodes whose use is given in percent (CPU,
// memory) with running pods of 1 CPU and 1Gi on them.
type nodeSpec struct {
	name     string
	cpu, mem float64
	pods     []*v1.Pod
}

func open(t *testing.T, args string, nodes ...nodeSpec) (*framework.Session, *Plugin) {
	t.Helper()
	c := testutil.Cluster{
		Queues:    []*v1beta1.Queue{testutil.Queue("q", 1)},
		PodGroups: []*v1beta1.PodGroup{testutil.PodGroup("ns", "pg", "q", 1, v1beta1.PodGroupRunning)},
	}
	for _, n := range nodes {
		c.Nodes = append(c.Nodes, testutil.Node(n.name, testutil.Res("cpu", "10", "memory", "10Gi", "pods", "110")))
		c.Pods = append(c.Pods, n.pods...)
	}
	ci, err := c.Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		ci.Nodes[n.name].SetUsage(api.NewNodeUsage(time.Now(), n.cpu, n.mem))
	}
	registry := testutil.Registry(t, map[string]framework.Factory{Name: New})
	ssn, _ := testutil.OpenOn(t, ci, registry, "actions: \"shuffle\"\ntiers:\n- plugins:\n  - name: rescheduling\n"+args)
	return ssn, testutil.Instance[*Plugin](t, ssn)
}

func pod(name, node string, prio *int32, guaranteed bool) *v1.Pod {
	p := testutil.Pod("ns", name, "pg", node, testutil.Res("cpu", "1", "memory", "1Gi"))
	p.Spec.Priority = prio
	if guaranteed {
		p.Spec.Containers[0].Resources.Limits = testutil.Res("cpu", "1", "memory", "1Gi")
	}
	return p
}

func running(ssn *framework.Session) []*api.TaskInfo {
	var out []*api.TaskInfo
	for _, j := range ssn.Jobs {
		for _, t := range j.TaskStatusIndex[api.Running] {
			out = append(out, t)
		}
	}
	return out
}

func names(ts []*api.TaskInfo) string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return strings.Join(out, " ")
}

func int32p(v int32) *int32 { return &v }

func TestBusyNodeGivesUpPodsLowestFirstUntilUnderTarget(t *testing.T) {
	// n1 at 70% CPU: each 1-CPU pod frees 10%. The quiet n2 (10%) has
	// room for 4 CPUs up to its 50% target. Pods go without a priority
	// first, then by priority, Burstable before Guaranteed: p-none, p-low,
	// p-burst; after two, n1 is at 50% (still at the target), after three
	// at 40%.
	ssn, p := open(t, lnuArgs,
		nodeSpec{"n1", 70, 30, []*v1.Pod{
			pod("p-high", "n1", int32p(100), false),
			pod("p-guaranteed", "n1", int32p(10), true),
			pod("p-burst", "n1", int32p(10), false),
			pod("p-low", "n1", int32p(1), false),
			pod("p-none", "n1", nil, false),
		}},
		nodeSpec{"n2", 10, 10, nil},
		nodeSpec{"n3", 30, 30, nil},
	)
	if got, want := names(p.VictimTasks(running(ssn))), "p-none p-low p-burst"; got != want {
		t.Fatalf("victims %q, want %q", got, want)
	}
}

func TestRoomOnQuietNodesBoundsEviction(t *testing.T) {
	// n1 stops giving up pods once it is under its target, though the
	// quiet n2 (15%) still has room.
	ssn, p := open(t, lnuArgs,
		nodeSpec{"n1", 60, 30, []*v1.Pod{pod("a", "n1", nil, false), pod("b", "n1", nil, false), pod("c", "n1", nil, false)}},
		nodeSpec{"n2", 15, 15, nil},
	)
	// Room 3.5 CPUs: a (60->50, still at target), b (50->40): stop.
	if got, want := names(p.VictimTasks(running(ssn))), "a b"; got != want {
		t.Fatalf("victims %q, want %q", got, want)
	}
}

func TestNothingMovesWithoutBothQuietAndBusyNodes(t *testing.T) {
	busy := []*v1.Pod{pod("a", "n1", nil, false)}
	for name, nodes := range map[string][]nodeSpec{
		"no quiet node":  {{"n1", 80, 80, busy}, {"n2", 30, 30, nil}},
		"no busy node":   {{"n1", 40, 40, busy}, {"n2", 10, 10, nil}},
		"all quiet":      {{"n1", 10, 10, busy}, {"n2", 10, 10, nil}},
		"quiet cordoned": {{"n1", 80, 80, busy}, {"n2", 10, 10, nil}},
	} {
		t.Run(name, func(t *testing.T) {
			ssn, p := open(t, lnuArgs, nodes...)
			if name == "quiet cordoned" {
				ssn.Nodes["n2"].Node.Spec.Unschedulable = true
			}
			if got := p.VictimTasks(running(ssn)); len(got) != 0 {
				t.Fatalf("victims %q, want none", names(got))
			}
		})
	}
}

func TestTheDefaultPeriodReadsNoMeasure(t *testing.T) {
	// Without metricsPeriod the strategy reads the 5m average, which no
	// source measures: every node reads 0% and is quiet.
	args := strings.Replace(lnuArgs, "      metricsPeriod: 10m\n", "", 1)
	ssn, p := open(t, args, nodeSpec{"n1", 90, 90, []*v1.Pod{pod("a", "n1", nil, false)}}, nodeSpec{"n2", 10, 10, nil})
	if got := p.VictimTasks(running(ssn)); len(got) != 0 {
		t.Fatalf("victims %q, want none", names(got))
	}
}

func TestIntervalGatesRuns(t *testing.T) {
	defer func(f func() time.Time) {
		now = f
		lastRun.Lock()
		lastRun.at = time.Time{}
		lastRun.Unlock()
	}(now)
	at := time.Now()
	now = func() time.Time { return at }
	lastRun.Lock()
	lastRun.at = at.Add(-time.Hour)
	lastRun.Unlock()
	args := strings.Replace(lnuArgs, "1ns", "5m", 1)
	nodes := []nodeSpec{{"n1", 80, 30, []*v1.Pod{pod("a", "n1", nil, false)}}, {"n2", 10, 10, nil}}
	ssn, p := open(t, args, nodes...)
	if got := names(p.VictimTasks(running(ssn))); got != "a" {
		t.Fatalf("first session: victims %q, want a", got)
	}
	now = func() time.Time { return at.Add(4 * time.Minute) }
	ssn, p = open(t, args, nodes...)
	if got := p.VictimTasks(running(ssn)); len(got) != 0 {
		t.Fatalf("within the interval: victims %q, want none", names(got))
	}
	now = func() time.Time { return at.Add(6 * time.Minute) }
	ssn, p = open(t, args, nodes...)
	if got := names(p.VictimTasks(running(ssn))); got != "a" {
		t.Fatalf("after the interval: victims %q, want a", got)
	}
}

func TestArguments(t *testing.T) {
	lnu := func(params map[string]any) framework.Arguments {
		return framework.Arguments{StrategiesKey: []any{map[string]any{"name": LowNodeUtilization, "params": params}}}
	}
	refused := map[string]framework.Arguments{
		"unknown strategy":  {StrategiesKey: []any{map[string]any{"name": "highNodeUtilization"}}},
		"bad interval":      {IntervalKey: "five minutes"},
		"unknown key":       {"intervall": "5m"},
		"unknown param":     lnu(map[string]any{"threshold": map[string]any{"cpu": 20}}),
		"unknown resource":  lnu(map[string]any{"thresholds": map[string]any{"gpu": 20}}),
		"fraction":          lnu(map[string]any{"thresholds": map[string]any{"cpu": 20.5}}),
		"strategies is map": {StrategiesKey: map[string]any{"name": LowNodeUtilization}},
	}
	for name, a := range refused {
		if _, err := New(a); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	p, err := New(lnu(map[string]any{
		"thresholds":                 map[string]any{"cpu": 20, "pods": 20},
		"targetThresholds":           map[string]any{"memory": 60},
		"thresholdPriorityClassName": "system-cluster-critical",
		"nodeFit":                    true,
	}))
	if err != nil {
		t.Fatal(err)
	}
	got := p.(*Plugin).args
	if got.lnu.low != (utilization{20, 100}) || got.lnu.target != (utilization{100, 60}) || got.interval != defaultInterval || got.metricsPeriod != "5m" {
		t.Fatalf("parsed %+v", got)
	}
}
