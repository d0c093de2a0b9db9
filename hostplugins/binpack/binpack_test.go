package binpack

import (
	"math"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

func config(args string) string {
	return `actions: allocate
tiers:
- plugins:
  - name: binpack
    arguments:
` + args
}

// The cluster of Volcano's binpack test: n1 holds p1, n3 holds p2.
func binpackCluster() ([]*v1.Node, []*v1.Pod) {
	n2 := node("n2", rl("cpu", "4", "memory", "16Gi", "pods", "10", "nvidia.com/gpu", "4"))
	n3 := node("n3", rl("cpu", "2", "memory", "4Gi", "pods", "10", "example.com/foo", "16"))
	nodes := []*v1.Node{node("n1", rl("cpu", "2", "memory", "4Gi", "pods", "10")), n2, n3}
	pods := []*v1.Pod{
		pod("p1", "n1", rl("cpu", "1", "memory", "1Gi")),
		pod("p2", "n3", rl("cpu", "1.5", "memory", "0Gi")),
		pod("p3", "", rl("cpu", "2", "memory", "10Gi", "nvidia.com/gpu", "2")),
		pod("p4", "", rl("cpu", "3", "memory", "4Gi", "example.com/foo", "3")),
	}
	return nodes, pods
}

func TestScores(t *testing.T) {
	tests := []struct {
		name string
		args string
		want map[string]map[string]float64
	}{{
		name: "weighted with two extended resources",
		args: `      binpack.weight: 10
      binpack.cpu: 2
      binpack.memory: 3
      binpack.resources: nvidia.com/gpu, example.com/foo
      binpack.resources.nvidia.com/gpu: 7
      binpack.resources.example.com/foo: 8
`,
		want: map[string]map[string]float64{
			"p1": {"n1": 700, "n2": 137.5, "n3": 0},
			"p2": {"n1": 0, "n2": 375, "n3": 0},
			"p3": {"n1": 0, "n2": 531.25, "n3": 0},
			"p4": {"n1": 0, "n2": 173.076923076, "n3": 0},
		},
	}, {
		name: "gpu weighted, foo not listed",
		args: `      binpack.weight: 1
      binpack.resources: nvidia.com/gpu
      binpack.resources.nvidia.com/gpu: 23
`,
		want: map[string]map[string]float64{
			"p1": {"n1": 75, "n2": 15.625, "n3": 0},
			"p2": {"n1": 0, "n2": 37.5, "n3": 0},
			"p3": {"n1": 0, "n2": 50.5, "n3": 0},
			"p4": {"n1": 0, "n2": 50, "n3": 0},
		},
	}, {
		name: "defaults: cpu and memory weigh 1, weight 1",
		args: "      binpack.weight: 1\n",
		want: map[string]map[string]float64{
			// p1 on n2: cpu 1/4, memory 1/16 -> (0.25+0.0625)/2*100
			"p1": {"n1": 75, "n2": 15.625},
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			nodes, pods := binpackCluster()
			ssn := openSession(t, config(tc.args), nodes, pods)
			for taskName, byNode := range tc.want {
				task := taskByName(ssn, taskName)
				for nodeName, want := range byNode {
					got, err := ssn.NodeOrderFn(task, ssn.Nodes[nodeName])
					if err != nil {
						t.Fatal(err)
					}
					if math.Abs(got-want) > 1e-6 {
						t.Errorf("%s on %s: score %v, want %v", taskName, nodeName, got, want)
					}
				}
			}
		})
	}
}

func TestZeroWeightDropsTheHook(t *testing.T) {
	nodes, pods := binpackCluster()
	ssn := openSession(t, config("      binpack.weight: 0\n"), nodes, pods)
	if ssn.HasNodeOrder() {
		t.Fatal("binpack.weight 0 must leave the session without node scoring, as Volcano registers no function")
	}
}

func TestArguments(t *testing.T) {
	tests := []struct {
		name    string
		args    framework.Arguments
		want    Weights
		wantErr string
	}{
		{name: "defaults", args: nil, want: Weights{Binpack: 1, CPU: 1, Memory: 1, Scalars: map[v1.ResourceName]int{}}},
		{
			name: "negative resource weights fall back to 1",
			args: framework.Arguments{"binpack.cpu": -3, "binpack.memory": -1, "binpack.resources": "a.com/x, ,b.com/y", "binpack.resources.a.com/x": -2, "binpack.resources.b.com/y": 4},
			want: Weights{Binpack: 1, CPU: 1, Memory: 1, Scalars: map[v1.ResourceName]int{"a.com/x": 1, "b.com/y": 4}},
		},
		{name: "unknown keys are ignored like Volcano", args: framework.Arguments{"binpack.resources.c.com/z": 5, "other": true}, want: Weights{Binpack: 1, CPU: 1, Memory: 1, Scalars: map[v1.ResourceName]int{}}},
		{name: "wrong type names the key", args: framework.Arguments{"binpack.weight": "heavy"}, wantErr: `"binpack.weight"`},
		{name: "resources must be a string", args: framework.Arguments{"binpack.resources": []any{"a"}}, wantErr: `"binpack.resources"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseWeights(tc.args)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one naming %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Binpack != tc.want.Binpack || got.CPU != tc.want.CPU || got.Memory != tc.want.Memory || len(got.Scalars) != len(tc.want.Scalars) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			for k, v := range tc.want.Scalars {
				if got.Scalars[k] != v {
					t.Fatalf("got %+v, want %+v", got, tc.want)
				}
			}
		})
	}
}

func BenchmarkNodeOrder(b *testing.B) {
	nodes, pods := binpackCluster()
	ssn := openSession(b, config("      binpack.resources: nvidia.com/gpu\n"), nodes, pods)
	p := ssn.Plugins()[0].(*Plugin)
	task, n := taskByName(ssn, "p3"), ssn.Nodes["n2"]
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.NodeOrder(task, n); err != nil {
			b.Fatal(err)
		}
	}
}
