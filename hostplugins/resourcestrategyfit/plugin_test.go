package resourcestrategyfit

import (
	"math"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/testutil"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

func res(cpu, mem float64) *api.Resource { return &api.Resource{MilliCPU: cpu, Memory: mem} }

func strategies(weight int, rs map[string][2]any) framework.Arguments {
	m := map[string]any{}
	for name, r := range rs {
		m[name] = map[string]any{"type": r[0], "weight": r[1]}
	}
	return framework.Arguments{WeightKey: weight, ResourcesKey: m}
}

func both(weight int, cpuType string, cpuW int, memType string, memW int) framework.Arguments {
	return strategies(weight, map[string][2]any{"cpu": {cpuType, cpuW}, "memory": {memType, memW}})
}

// Volcano v1.15's resource_strategy_fit_test.go TestScore, every case: a
// task's score on a node of the given used and allocatable CPU and memory.
func TestStrategyScore(t *testing.T) {
	const L, M = LeastAllocated, MostAllocated
	cases := []struct {
		name        string
		req         *api.Resource
		annotations map[string]string
		used, alloc *api.Resource
		args        framework.Arguments
		want        float64
	}{
		{"test1", res(100, 100), nil, res(200, 200), res(500, 500), both(10, L, 1, L, 1), 400},
		{"test2", res(100, 100), nil, res(200, 200), res(400, 400), both(10, L, 1, L, 1), 250},
		{"test3", res(100, 100), nil, res(200, 200), res(500, 500), both(10, M, 1, M, 1), 600},
		{"test4", res(100, 100), nil, res(200, 200), res(400, 400), both(10, M, 1, M, 1), 750},
		{"test5", res(100, 100), nil, res(200, 200), res(500, 500), both(10, L, 2, M, 1), 466.66666667},
		{"test6", res(100, 100), nil, res(200, 200), res(500, 500), both(10, L, 1, M, 2), 533.33333333},
		{"test7", res(0, 100), nil, res(200, 200), res(500, 500), both(10, L, 1, M, 2), 600},
		{"test8", res(100, 100), nil, res(200, 200), res(0, 400), both(10, L, 1, M, 2), 500},
		{"test9", res(100, 100), nil, res(200, 200), res(500, 500), strategies(10, map[string][2]any{"memory": {M, 2}}), 600},
		{"pod-level-scoring-least-allocated", res(100, 100), map[string]string{StrategyAnnotation: L, StrategyWeightAnnotation: `{"cpu": 2, "memory": 1}`},
			res(200, 200), res(500, 500), both(10, L, 1, L, 1), 400},
		{"pod-level-scoring-most-allocated", res(100, 100), map[string]string{StrategyAnnotation: M, StrategyWeightAnnotation: `{"cpu": 1, "memory": 2}`},
			res(200, 200), res(500, 500), both(10, L, 1, L, 1), 600},
		{"pod-level-scoring-invalid-json", res(100, 100), map[string]string{StrategyAnnotation: L, StrategyWeightAnnotation: `invalid-json`},
			res(200, 200), res(500, 500), both(10, L, 1, L, 1), 0},
		{"pod-level-scoring-missing-resource-weight", res(100, 100), map[string]string{StrategyAnnotation: L, StrategyWeightAnnotation: `{"cpu": 2}`},
			res(200, 200), res(500, 500), both(10, L, 1, L, 1), 400},
		{"zero-resources-requested", res(0, 0), nil, res(200, 200), res(500, 500), both(10, L, 1, L, 1), 0},
		{"node-fully-allocated", res(100, 100), nil, res(500, 500), res(500, 500), both(10, L, 1, L, 1), 0},
		{"mixed-scoring-strategies", res(100, 100), nil, res(200, 200), res(500, 500), both(10, L, 3, M, 1), 450},
		{"high-weight-scenario", res(100, 100), nil, res(200, 200), res(500, 500), both(20, L, 5, L, 5), 800},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pl, err := New(c.args)
			if err != nil {
				t.Fatal(err)
			}
			task := &api.TaskInfo{Namespace: "ns", Name: c.name, Resreq: c.req, Pod: &v1.Pod{ObjectMeta: metav1.ObjectMeta{Annotations: c.annotations}}}
			node := &api.NodeInfo{Name: "n", Used: c.used, Allocatable: c.alloc, Idle: api.EmptyResource()}
			if got, _ := pl.(*Plugin).NodeOrder(task, node); math.Abs(got-c.want) > 1e-6 {
				t.Errorf("score %v, want %v", got, c.want)
			}
		})
	}
}

// Volcano's TestResourceStrategyFitPlugin: scores through a session, with
// extended resources, weights per resource and nodes lacking a resource;
// and its sra_test.go TestNode.
func TestSessionScores(t *testing.T) {
	gpu, foo := "nvidia.com/gpu", "example.com/foo"
	node := func(name string, extra ...string) *v1.Node {
		return testutil.Node(name, testutil.Res(append([]string{"cpu", "4", "memory", "4Gi", "pods", "10"}, extra...)...))
	}
	pod := func(name string, extra ...string) *v1.Pod {
		return testutil.Pod("c1", name, "pg1", "", testutil.Res(append([]string{"cpu", "1", "memory", "1Gi"}, extra...)...))
	}
	cases := []struct {
		nodes []*v1.Node
		pods  []*v1.Pod
		args  framework.Arguments
		want  map[string]map[string]float64
	}{{
		nodes: []*v1.Node{node("n1", gpu, "10"), node("n2", gpu, "5"), node("n3", foo, "10"), node("n4", foo, "5")},
		pods: []*v1.Pod{pod("p1", foo, "2"), pod("p2", foo, "3"),
			testutil.Pod("c1", "p3", "pg1", "", testutil.Res("cpu", "1", "memory", "10Gi", gpu, "2")), pod("p4", gpu, "3")},
		args: strategies(10, map[string][2]any{gpu: {MostAllocated, 1}, foo: {LeastAllocated, 1}}),
		want: map[string]map[string]float64{
			"c1/p1": {"n1": 0, "n2": 0, "n3": 800, "n4": 600},
			"c1/p2": {"n1": 0, "n2": 0, "n3": 700, "n4": 400},
			"c1/p3": {"n1": 200, "n2": 400, "n3": 0, "n4": 0},
			"c1/p4": {"n1": 300, "n2": 600, "n3": 0, "n4": 0},
		},
	}, {
		nodes: []*v1.Node{node("n5", gpu, "10", foo, "5"), node("n6", foo, "10")},
		pods:  []*v1.Pod{pod("p5", gpu, "4", foo, "4")},
		args:  strategies(10, map[string][2]any{gpu: {MostAllocated, 1}, foo: {LeastAllocated, 2}}),
		want:  map[string]map[string]float64{"c1/p5": {"n5": 266.66666666, "n6": 399.99999999}},
	}}
	// Volcano's sra_test.go TestNode, cases 1 to 4: scarce resource
	// avoidance alone, then beside the strategies.
	t4, a10 := "nvidia.com/t4", "nvidia.com/a10"
	sraNodes := []*v1.Node{testutil.Node("n1", testutil.Res("cpu", "32", "memory", "64Gi", "pods", "10")), node("n2", t4, "16"), node("n3", a10, "16"), node("n4", t4, "8", a10, "16")}
	for _, n := range sraNodes[1:] {
		n.Status.Allocatable["cpu"], n.Status.Allocatable["memory"] = testutil.Res("cpu", "8")["cpu"], testutil.Res("memory", "16Gi")["memory"]
		n.Status.Capacity = n.Status.Allocatable
	}
	sraPods := []*v1.Pod{pod("p1"), testutil.Pod("c1", "p2", "pg1", "", testutil.Res("cpu", "1.5", "memory", "0", t4, "2")),
		testutil.Pod("c1", "p3", "pg1", "", testutil.Res("cpu", "2", "memory", "4Gi", a10, "2")),
		testutil.Pod("c1", "p4", "pg1", "", testutil.Res("cpu", "3", "memory", "4Gi", t4, "1", a10, "3"))}
	sraArgs := func(weight int, resources string, rw map[string]any) map[string]any {
		return map[string]any{"enable": true, "resources": resources, "weight": weight, "resourceWeight": rw}
	}
	withStrategies := strategies(8, map[string][2]any{t4: {MostAllocated, 3}, "cpu": {LeastAllocated, 1}})
	sra3, sra4 := framework.Arguments{}, framework.Arguments{}
	for k, v := range withStrategies {
		sra3[k], sra4[k] = v, v
	}
	sra3[SraKey], sra4[SraKey] = sraArgs(0, t4, map[string]any{t4: 2}), sraArgs(5, t4, map[string]any{t4: 2})
	strategyPart := map[string]map[string]float64{
		"c1/p2": {"n1": 190.625, "n2": 237.5, "n3": 162.5, "n4": 312.5},
		"c1/p4": {"n1": 181.25, "n2": 162.5, "n3": 125, "n4": 200},
	}
	cases = append(cases, []struct {
		nodes []*v1.Node
		pods  []*v1.Pod
		args  framework.Arguments
		want  map[string]map[string]float64
	}{{
		nodes: sraNodes, pods: sraPods,
		args: framework.Arguments{WeightKey: 0, SraKey: sraArgs(5, t4+", "+a10, map[string]any{t4: 2, a10: 3})},
		want: map[string]map[string]float64{
			"c1/p1": {"n1": 500, "n2": 300, "n3": 200, "n4": 0}, "c1/p2": {"n1": 0, "n2": 300, "n3": 0, "n4": 0},
			"c1/p3": {"n1": 0, "n2": 0, "n3": 200, "n4": 0}, "c1/p4": {"n1": 0, "n2": 0, "n3": 0, "n4": 0},
		},
	}, {
		nodes: sraNodes, pods: sraPods,
		args: framework.Arguments{WeightKey: 0, SraKey: sraArgs(5, t4, map[string]any{t4: 2})},
		want: map[string]map[string]float64{
			"c1/p1": {"n1": 500, "n2": 0, "n3": 500, "n4": 0}, "c1/p2": {"n1": 0, "n2": 0, "n3": 0, "n4": 0},
			"c1/p3": {"n1": 0, "n2": 0, "n3": 500, "n4": 0}, "c1/p4": {"n1": 0, "n2": 0, "n3": 0, "n4": 0},
		},
	}, {
		nodes: sraNodes, pods: sraPods, args: sra3,
		want: map[string]map[string]float64{
			"c1/p1": {"n1": 775, "n2": 700, "n3": 700, "n4": 700}, "c1/p2": strategyPart["c1/p2"],
			"c1/p3": {"n1": 750, "n2": 600, "n3": 600, "n4": 600}, "c1/p4": strategyPart["c1/p4"],
		},
	}, {
		nodes: sraNodes, pods: sraPods, args: sra4,
		want: map[string]map[string]float64{
			"c1/p1": {"n1": 1275, "n2": 700, "n3": 1200, "n4": 700}, "c1/p2": strategyPart["c1/p2"],
			"c1/p3": {"n1": 750, "n2": 600, "n3": 1100, "n4": 600}, "c1/p4": strategyPart["c1/p4"],
		},
	}}...)
	for i, c := range cases {
		reg := testutil.Registry(t, map[string]framework.Factory{Name: func(framework.Arguments) (framework.Plugin, error) { return New(c.args) }})
		cl := testutil.Cluster{Queues: []*v1beta1.Queue{testutil.Queue("c1", 1)}, Nodes: c.nodes, Pods: c.pods,
			PodGroups: []*v1beta1.PodGroup{testutil.PodGroup("c1", "pg1", "c1", 0, v1beta1.PodGroupInqueue)}}
		ssn, _ := testutil.Open(t, cl, reg, testutil.Tier(Name))
		for key, byNode := range c.want {
			task := testutil.Task(t, ssn, key)
			for name, want := range byNode {
				if got, _ := ssn.NodeOrderFn(task, ssn.Nodes[name]); math.Abs(got-want) > 1e-6 {
					t.Errorf("case %d: %s on %s scores %v, want %v", i, key, name, got, want)
				}
			}
		}
		ssn.Close()
	}
}

// Wildcards match by prefix, the longest prefix wins and an exact name
// beats any pattern (Volcano's Test_findResourceConfigWithPrefix).
func TestWildcards(t *testing.T) {
	pl, err := New(strategies(10, map[string][2]any{"nvidia.*": {LeastAllocated, 1}, "nvidia.com/*": {MostAllocated, 2}, "nvidia.com/gpu-x": {LeastAllocated, 3}}))
	if err != nil {
		t.Fatal(err)
	}
	p := pl.(*Plugin)
	for name, want := range map[string]strategy{"nvidia.com/gpu": {MostAllocated, 2}, "nvidia.io/x": {LeastAllocated, 1}, "nvidia.com/gpu-x": {LeastAllocated, 3}} {
		if got, ok := p.strategyOf(v1.ResourceName(name)); !ok || got != want {
			t.Errorf("%s: %+v %v, want %+v", name, got, ok, want)
		}
	}
	if _, ok := p.strategyOf("amd.com/gpu"); ok {
		t.Error("amd.com/gpu matched a pattern")
	}
}

// Volcano's Test_calculateWeight defaults, and Caldera's refusals.
func TestArguments(t *testing.T) {
	pl, err := New(framework.Arguments{})
	if err != nil {
		t.Fatal(err)
	}
	a := pl.(*Plugin).args
	if a.weight != 10 || a.exact["cpu"] != (strategy{LeastAllocated, 1}) || a.exact["memory"] != (strategy{LeastAllocated, 1}) || a.sra.weight != 0 || a.proportional != nil {
		t.Errorf("defaults %+v", a)
	}
	pl, err = New(framework.Arguments{WeightKey: -1, ResourcesKey: map[string]any{"cpu": map[string]any{"type": MostAllocated, "weight": 0}},
		SraKey:          map[string]any{"enable": true, "resources": "nvidia.com/gpu, example.com/foo", "weight": 10, "resourceWeight": map[string]any{"nvidia.com/gpu": 3}},
		ProportionalKey: map[string]any{"enable": true, "resources": "nvidia.com/gpu", "resourceProportion": map[string]any{"nvidia.com/gpu.cpu": 4, "nvidia.com/gpu.memory": 8}}})
	if err != nil {
		t.Fatal(err)
	}
	a = pl.(*Plugin).args
	if a.weight != 10 || a.exact["cpu"] != (strategy{MostAllocated, 1}) || a.sra.weight != 10 || a.sra.resources["nvidia.com/gpu"] != 3 ||
		a.sra.resources["example.com/foo"] != 1 || a.sra.weightSum != 4 || a.proportional["nvidia.com/gpu"] != (rates{4, 8}) {
		t.Errorf("parsed %+v", a)
	}
	for _, c := range []struct {
		args framework.Arguments
		want string
	}{
		{framework.Arguments{ResourcesKey: map[string]any{"cpu": map[string]any{"type": "MostAlocated"}}}, `"resources.cpu.type": expected LeastAllocated or MostAllocated`},
		{framework.Arguments{ResourcesKey: map[string]any{"*": map[string]any{"type": MostAllocated}}}, `"resources.*": a resource pattern`},
		{framework.Arguments{ResourcesKey: map[string]any{"a*b*": map[string]any{}}}, `"resources.a*b*"`},
		{framework.Arguments{ResourcesKey: "cpu"}, `"resources": expected a mapping`},
		{framework.Arguments{SraKey: map[string]any{"weight": "heavy"}}, `"sra.weight"`},
		{framework.Arguments{ProportionalKey: map[string]any{"enable": true, "resources": "g", "resourceProportion": map[string]any{"g.cpu": "x"}}}, `"proportional.resourceProportion.g.cpu"`},
		{framework.Arguments{"resource": map[string]any{}}, `unknown arguments ["resource"]`},
		{framework.Arguments{SraKey: map[string]any{"enabled": true}}, `unknown arguments ["sra.enabled"]`},
	} {
		if _, err := New(c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want it to contain %s", c.args, err, c.want)
		}
	}
}

// Volcano's proportional_test.go Test_checkNodeResourceIsProportional:
// 4 CPUs and 4 GB kept idle per idle GPU, unless the task asks for GPUs.
func TestProportional(t *testing.T) {
	pl, err := New(framework.Arguments{ProportionalKey: map[string]any{"enable": true, "resources": "nvidia.com/gpu",
		"resourceProportion": map[string]any{"nvidia.com/gpu.cpu": 4, "nvidia.com/gpu.memory": 4}}})
	if err != nil {
		t.Fatal(err)
	}
	p := pl.(*Plugin)
	amount := func(cpu, mem, gpu string) *api.Resource {
		return api.NewResource(testutil.Res("cpu", cpu, "memory", mem, "nvidia.com/gpu", gpu))
	}
	t1, t2, t3 := amount("4", "4G", "0"), amount("10", "10G", "0"), amount("10", "10G", "1")
	n1, n2 := amount("30", "30G", "6"), amount("26", "26G", "2")
	for _, c := range []struct {
		name       string
		task, idle *api.Resource
		fails      bool
	}{
		{"cpu_task_less_than_reserved_resource", t1, n1, false},
		{"cpu_task_greater_than_reserved_resource", t2, n1, true},
		{"gpu_task_no_proportional_check", t3, n1, false},
		{"cpu_task_less_than_idle_resource", t2, n2, false},
	} {
		st := p.Predicate(&api.TaskInfo{Name: c.name, Resreq: c.task}, &api.NodeInfo{Name: "n", Idle: c.idle})
		if failed := st != nil && !st.IsSuccess(); failed != c.fails {
			t.Errorf("%s: status %v, want failure %v", c.name, st, c.fails)
		}
		if c.fails && (st.Code != framework.UnschedulableAndUnresolvable || st.Message() != "proportional of resource nvidia.com/gpu check failed") {
			t.Errorf("%s: status %v", c.name, st)
		}
	}
}
