package nodeorder

import (
	"fmt"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/testutil"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// onlyWeights turns every strategy off except those given.
func onlyWeights(kv ...string) string {
	w := map[string]string{
		LeastRequestedWeightKey: "0", MostRequestedWeightKey: "0", BalancedResourceWeightKey: "0",
		NodeAffinityWeightKey: "0", TaintTolerationWeightKey: "0", PodAffinityWeightKey: "0",
		PodTopologySpreadWeightKey: "0", ImageLocalityWeightKey: "0",
	}
	for i := 0; i+1 < len(kv); i += 2 {
		w[kv[i]] = kv[i+1]
	}
	var b strings.Builder
	for _, k := range []string{LeastRequestedWeightKey, MostRequestedWeightKey, BalancedResourceWeightKey, NodeAffinityWeightKey,
		TaintTolerationWeightKey, PodAffinityWeightKey, PodTopologySpreadWeightKey, ImageLocalityWeightKey} {
		fmt.Fprintf(&b, "      %s: %s\n", k, w[k])
	}
	return b.String()
}

func config(args string, withPredicates bool) string {
	s := "actions: allocate\ntiers:\n- plugins:\n"
	if withPredicates {
		s += "  - name: predicates\n"
	}
	s += "  - name: nodeorder\n"
	if args != "" {
		s += "    arguments:\n" + args
	}
	return s
}

func preferring(p *v1.Pod, terms ...v1.PreferredSchedulingTerm) *v1.Pod {
	p.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: terms}}
	return p
}

func prefer(weight int32, key, value string) v1.PreferredSchedulingTerm {
	return v1.PreferredSchedulingTerm{Weight: weight, Preference: v1.NodeSelectorTerm{
		MatchExpressions: []v1.NodeSelectorRequirement{{Key: key, Operator: v1.NodeSelectorOpIn, Values: []string{value}}}}}
}

func soft(key string) v1.Taint { return v1.Taint{Key: key, Effect: v1.TaintEffectPreferNoSchedule} }

// The expected numbers are kube-scheduler's integer arithmetic worked by hand.
func TestScores(t *testing.T) {
	small := node("n1", rl("cpu", "2", "memory", "4Gi", "pods", "10"))
	large := node("n2", rl("cpu", "4", "memory", "8Gi", "pods", "10"))
	tests := []struct {
		name     string
		args     string
		nodes    []*v1.Node
		existing []*v1.Pod
		pod      *v1.Pod
		want     map[string]float64
	}{{
		// acceptance alloc-nodeorder-least-requested: n1 cpu 50, memory 76 -> 63; n2 75, 88 -> 81.
		name:  "least requested prefers the emptier node",
		args:  onlyWeights(LeastRequestedWeightKey, "1"),
		nodes: []*v1.Node{small, large}, pod: pod("p1", "", rl("cpu", "1", "memory", "1G")),
		want: map[string]float64{"n1": 63, "n2": 81},
	}, {
		name:  "least requested counts kube-scheduler's defaults for empty requests",
		args:  onlyWeights(LeastRequestedWeightKey, "2"),
		nodes: []*v1.Node{large}, existing: []*v1.Pod{running(pod("e", "n2", nil))}, pod: pod("p1", "", nil),
		// cpu: 200m of 4 -> 95; memory: 400Mi of 8Gi -> 95; weight 2.
		want: map[string]float64{"n2": 190},
	}, {
		name:  "most requested",
		args:  onlyWeights(MostRequestedWeightKey, "1"),
		nodes: []*v1.Node{small, large}, pod: pod("p1", "", rl("cpu", "1", "memory", "1G")),
		// n1: cpu 50, memory 23 -> 36; n2: 25, 11 -> 18.
		want: map[string]float64{"n1": 36, "n2": 18},
	}, {
		name:  "balanced allocation",
		args:  onlyWeights(BalancedResourceWeightKey, "1"),
		nodes: []*v1.Node{small, large}, existing: []*v1.Pod{running(pod("e", "n2", rl("cpu", "1")))},
		pod: pod("p1", "", rl("cpu", "1", "memory", "1Gi")),
		// n1: 0.5 and 0.25 -> 87; n2: 0.5 and 0.125 -> 81.
		want: map[string]float64{"n1": 87, "n2": 81},
	}, {
		name:  "balanced allocation with a GPU",
		args:  onlyWeights(BalancedResourceWeightKey, "1"),
		nodes: []*v1.Node{node("g", rl("cpu", "4", "memory", "8Gi", "nvidia.com/gpu", "4"))},
		pod:   pod("p1", "", rl("cpu", "1", "memory", "2Gi", "nvidia.com/gpu", "2")),
		// fractions 0.25, 0.25, 0.5: σ = 0.1178 -> 88.
		want: map[string]float64{"g": 88},
	}, {
		name:  "balanced allocation skips a pod that requests nothing",
		args:  onlyWeights(BalancedResourceWeightKey, "1"),
		nodes: []*v1.Node{small}, existing: []*v1.Pod{running(pod("e", "n1", rl("cpu", "2")))}, pod: pod("p1", "", nil),
		want: map[string]float64{"n1": 0},
	}, {
		name: "preferred node affinity, normalised to the best node",
		args: onlyWeights(NodeAffinityWeightKey, "2"),
		nodes: []*v1.Node{
			withLabels(node("a", rl("cpu", "1")), "zone", "a"),
			withLabels(node("b", rl("cpu", "1")), "zone", "a", "disk", "ssd"),
			node("c", rl("cpu", "1")),
		},
		pod: preferring(pod("p1", "", nil), prefer(5, "zone", "a"), prefer(3, "disk", "ssd")),
		// raw 5, 8, 0 -> 62, 100, 0; weight 2.
		want: map[string]float64{"a": 124, "b": 200, "c": 0},
	}, {
		name:  "no preferred affinity: no affinity score",
		args:  onlyWeights(NodeAffinityWeightKey, "2"),
		nodes: []*v1.Node{withLabels(node("a", rl("cpu", "1")), "zone", "a")}, pod: pod("p1", "", nil),
		want: map[string]float64{"a": 0},
	}, {
		name: "untolerated PreferNoSchedule taints, reversed",
		args: onlyWeights(TaintTolerationWeightKey, "3"),
		nodes: []*v1.Node{
			withTaints(node("a", rl("cpu", "1")), soft("x"), soft("y"), v1.Taint{Key: "hard", Effect: v1.TaintEffectNoSchedule}),
			withTaints(node("b", rl("cpu", "1")), soft("x")),
			node("c", rl("cpu", "1")),
		},
		pod: pod("p1", "", nil),
		// raw 2, 1, 0 -> 0, 50, 100; weight 3.
		want: map[string]float64{"a": 0, "b": 150, "c": 300},
	}, {
		name:  "tolerated taints do not count; all zero means 100 each",
		args:  onlyWeights(TaintTolerationWeightKey, "1"),
		nodes: []*v1.Node{withTaints(node("a", rl("cpu", "1")), soft("x")), node("b", rl("cpu", "1"))},
		pod: func() *v1.Pod {
			p := pod("p1", "", nil)
			p.Spec.Tolerations = []v1.Toleration{{Key: "x", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectPreferNoSchedule}}
			return p
		}(),
		want: map[string]float64{"a": 100, "b": 100},
	}, {
		name:  "Volcano's defaults: least 1, balanced 1, affinity 2, taints 3",
		args:  "",
		nodes: []*v1.Node{small, large}, pod: pod("p1", "", rl("cpu", "1", "memory", "1Gi")),
		// least: n1 (50+75)/2=62, n2 (75+87)/2=81; balanced: 87, 93; taints: 100*3 each.
		want: map[string]float64{"n1": 62 + 87 + 300, "n2": 81 + 93 + 300},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ssn := openSession(t, config(tc.args, false), tc.nodes, append(tc.existing, tc.pod))
			got, err := scoresByName(ssn, taskByName(ssn, tc.pod.Name))
			if err != nil {
				t.Fatal(err)
			}
			for n, want := range tc.want {
				if got[n] != want {
					t.Errorf("node %s: score %v, want %v (all: %v)", n, got[n], want, got)
				}
			}
		})
	}
}

// Volcano's node usage follows the session only through the predicates
// plugin's event handlers.
func TestUsageFollowsPlacementsOnlyWithPredicates(t *testing.T) {
	for _, withPredicates := range []bool{false, true} {
		t.Run(fmt.Sprint("predicates configured: ", withPredicates), func(t *testing.T) {
			n := node("n1", rl("cpu", "4", "memory", "8Gi", "pods", "10"))
			ssn := openSession(t, config(onlyWeights(LeastRequestedWeightKey, "1"), withPredicates), []*v1.Node{n},
				[]*v1.Pod{pod("a", "", rl("cpu", "2", "memory", "4Gi")), pod("b", "", rl("cpu", "1", "memory", "2Gi"))})
			a, b, ni := taskByName(ssn, "a"), taskByName(ssn, "b"), ssn.Nodes["n1"]
			stmt := framework.NewStatement(ssn)
			if err := stmt.Allocate(a, ni); err != nil {
				t.Fatal(err)
			}
			got, _ := scoresByName(ssn, b)
			want := 75.0 // cpu 1 of 4 and memory 2Gi of 8Gi
			if withPredicates {
				want = 25 // a's 2 cpu and 4Gi are counted too
			}
			if got["n1"] != want {
				t.Fatalf("score %v, want %v", got["n1"], want)
			}
			stmt.Discard()
			if got, _ := scoresByName(ssn, b); got["n1"] != 75 {
				t.Fatalf("after discard: score %v, want 75", got["n1"])
			}
		})
	}
}

// A Wasm port of predicates, configured under its file name, declares the
// policy it implements; node usage then follows placements as with the
// native plugin.
func TestPortOfPredicatesCounts(t *testing.T) {
	reg := framework.NewRegistry()
	if err := reg.Register(Name, New); err != nil {
		t.Fatal(err)
	}
	if err := reg.Register("predicates.tinygo", func(framework.Arguments) (framework.Plugin, error) { return portedPredicates{}, nil }); err != nil {
		t.Fatal(err)
	}
	cfg := "actions: allocate\ntiers:\n- plugins:\n  - name: predicates.tinygo\n  - name: nodeorder\n    arguments:\n" +
		onlyWeights(LeastRequestedWeightKey, "1")
	n := node("n1", rl("cpu", "4", "memory", "8Gi", "pods", "10"))
	ssn := testutil.OneJobSession(t, reg, cfg, []*v1.Node{n},
		[]*v1.Pod{pod("a", "", rl("cpu", "2", "memory", "4Gi")), pod("b", "", rl("cpu", "1", "memory", "2Gi"))})
	if err := framework.NewStatement(ssn).Allocate(taskByName(ssn, "a"), ssn.Nodes["n1"]); err != nil {
		t.Fatal(err)
	}
	if got, _ := scoresByName(ssn, taskByName(ssn, "b")); got["n1"] != 25 {
		t.Fatalf("score %v, want 25: a's placement must count", got["n1"])
	}
}

type portedPredicates struct{ stubPredicates }

func (portedPredicates) Name() string       { return "predicates.tinygo" }
func (portedPredicates) PolicyName() string { return "predicates" }

func TestArguments(t *testing.T) {
	w, err := ParseWeights(nil)
	if err != nil || w != (Weights{LeastRequested: 1, BalancedResource: 1, NodeAffinity: 2, TaintToleration: 3, PodAffinity: 2, PodTopologySpread: 2, ImageLocality: 1, HardPodAffinity: 1}) {
		t.Fatalf("defaults %+v %v", w, err)
	}
	if _, err := New(framework.Arguments{"podaffinity.weight": 5, "imagelocality.weight": 0, "podtopologyspread.weight": "3", "unknown": true}); err != nil {
		t.Fatal(err)
	}
	if _, err := New(framework.Arguments{"leastrequested.weight": "a lot"}); err == nil || !strings.Contains(err.Error(), LeastRequestedWeightKey) {
		t.Fatalf("wrong type: %v, want an error naming the key", err)
	}
	if _, err := New(framework.Arguments{HardPodAffinityWeightKey: 101}); err == nil || !strings.Contains(err.Error(), "not in the range 0-100") {
		t.Fatalf("hardPodAffinityWeight 101: %v, want a range error", err)
	}
}

// The per-template affinity and taint caches answer exactly as a fresh
// computation, for every node and however often asked.
func TestCacheMatchesUncached(t *testing.T) {
	var nodes []*v1.Node
	for i := 0; i < 9; i++ {
		n := withLabels(node(fmt.Sprint("n", i), rl("cpu", "4", "memory", "8Gi")), "zone", fmt.Sprint("z", i%3), "disk", fmt.Sprint("d", i%2))
		if i%2 == 0 {
			n = withTaints(n, soft("x"))
		}
		if i%3 == 0 {
			n.Spec.Taints = append(n.Spec.Taints, soft("y"))
		}
		nodes = append(nodes, n)
	}
	var pods []*v1.Pod
	for i := 0; i < 12; i++ {
		p := preferring(pod(fmt.Sprint("p", i), "", rl("cpu", "1")), prefer(int32(1+i%3), "zone", fmt.Sprint("z", i%3)), prefer(4, "disk", "d1"))
		if i%2 == 1 {
			p.Spec.Tolerations = []v1.Toleration{{Key: "y", Operator: v1.TolerationOpExists}}
		}
		pods = append(pods, p)
	}
	ssn := openSession(t, config("", false), nodes, pods)
	p := ssn.Plugins()[0].(*Plugin)
	for round := 0; round < 2; round++ {
		for _, j := range ssn.Jobs {
			for _, task := range j.TaskStatusIndex[api.Pending] {
				e, err := p.entryOf(task.Pod)
				if err != nil {
					t.Fatal(err)
				}
				fresh, err := newTemplate(task.Pod)
				if err != nil {
					t.Fatal(err)
				}
				for _, n := range ssn.NodeList {
					ns := p.stateOf(n)
					if got, want := e.tpl.affinityScore(ns, p.nodeCount), fresh.computeAffinity(ns); got != want {
						t.Fatalf("%s on %s: cached affinity %d, fresh %d", task.Name, n.Name, got, want)
					}
					if got, want := e.tpl.taintScore(ns, p.nodeCount), fresh.computeTaints(ns); got != want {
						t.Fatalf("%s on %s: cached taints %d, fresh %d", task.Name, n.Name, got, want)
					}
				}
			}
		}
	}
	if len(p.templates) != 6 {
		t.Errorf("%d templates, want 6 (3 preferences x 2 toleration sets)", len(p.templates))
	}
}

func BenchmarkNodeOrder(b *testing.B) {
	var nodes []*v1.Node
	for i := 0; i < 5000; i++ {
		n := withLabels(node(fmt.Sprintf("n%05d", i), rl("cpu", "32", "memory", "128Gi", "pods", "110")), "zone", fmt.Sprint("z", i%3))
		if i%10 == 0 {
			n = withTaints(n, soft("spot"))
		}
		nodes = append(nodes, n)
	}
	var pods []*v1.Pod
	for i := 0; i < 1000; i++ {
		pods = append(pods, running(pod(fmt.Sprintf("e%05d", i), fmt.Sprintf("n%05d", i*5), rl("cpu", "4", "memory", "8Gi"))))
	}
	for i := 0; i < 10; i++ {
		pods = append(pods, preferring(pod(fmt.Sprintf("p%02d", i), "", rl("cpu", "1", "memory", "2Gi")), prefer(10, "zone", "z1")))
	}
	ssn := openSession(b, config("", true), nodes, pods)
	p := ssn.Plugins()[1].(*Plugin)
	task := taskByName(ssn, "p00")
	scores := make([]float64, len(ssn.NodeList))
	if err := p.BatchNodeOrder(task, ssn.NodeList, scores); err != nil { // first session use sums the nodes
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := p.BatchNodeOrder(task, ssn.NodeList, scores); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(nodes)), "ns/node")
}

// scoresByName runs the session's batch scoring for a task over every node
// and returns the sums by node name.
func scoresByName(ssn *framework.Session, task *api.TaskInfo) (map[string]float64, error) {
	scores := make([]float64, len(ssn.NodeList))
	if err := ssn.BatchNodeOrderFn(task, ssn.NodeList, scores); err != nil {
		return nil, err
	}
	out := make(map[string]float64, len(scores))
	for i, n := range ssn.NodeList {
		out[n.Name] = scores[i]
	}
	return out, nil
}
