package main

import (
	"fmt"
	"slices"
	"testing"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

// The port's scores are proven equal to the native plugin's by cmd/caldera's
// TestPortsDecideAsNative; these tests pin the arithmetic on small cases and
// that the hot hook allocates nothing.

const gi = int64(1) << 30

func open(t testing.TB, nodes []caldera.Node, tasks []caldera.Task, plugins []string, args map[string]any) (*plugin, *caldera.Session) {
	t.Helper()
	s := &caldera.Session{View: caldera.View{Nodes: nodes, Tasks: tasks, Plugins: plugins}, Arguments: args}
	for i := range s.View.Nodes {
		s.View.Nodes[i].Handle = int32(i)
	}
	for i := range s.View.Tasks {
		s.View.Tasks[i].Handle = int32(i)
	}
	p := &plugin{}
	if err := p.OnSessionOpen(s); err != nil {
		t.Fatal(err)
	}
	return p, s
}

func node(name string, cpu, mem int64, zone string) caldera.Node {
	return caldera.Node{Name: name, Labels: map[string]string{"zone": zone},
		Allocatable: caldera.Resource{MilliCPU: cpu, Memory: mem, Scalars: caldera.ScalarsOf(map[string]int64{"pods": 110})}}
}

func request(cpu, mem int64) caldera.KubeRequest {
	return caldera.KubeRequest{MilliCPU: cpu, Memory: mem, NonZeroMilliCPU: cpu, NonZeroMemory: mem}
}

func pending(r caldera.KubeRequest) caldera.Task {
	return caldera.Task{Node: -1, Status: caldera.Pending, KubeRequest: r}
}

func scores(t testing.TB, p *plugin, s *caldera.Session, task int32) []float64 {
	t.Helper()
	nodes := make([]*caldera.Node, len(s.View.Nodes))
	for i := range nodes {
		nodes[i] = &s.View.Nodes[i]
	}
	out := make([]float64, len(nodes))
	if err := p.NodeOrderBatch(s, &s.View.Tasks[task], nodes, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// n1: 4 cpu, 8Gi, 1 cpu and 2Gi in use; n2: 8 cpu, 8Gi, empty; the task
// asks for 1 cpu and 1Gi.
//
//	least     n1 (50*50 + 62*50)/100 = 56     n2 (87*50 + 87*50)/100 = 87
//	balanced  n1 (1 - |0.5-0.375|/2)*100 = 93  n2 100
//	taints    none anywhere: 100 each, times 3
func twoNodes() []caldera.Node {
	n1, n2 := node("n1", 4000, 8*gi, "a"), node("n2", 8000, 8*gi, "b")
	n1.KubeRequested = request(1000, 2*gi)
	return []caldera.Node{n1, n2}
}

func TestNodeOrderBatch(t *testing.T) {
	prefer := &caldera.NodeAffinity{Preferred: []caldera.PreferredTerm{
		{Weight: 5, Term: caldera.NodeSelectorTerm{MatchExpressions: []caldera.NodeSelectorRequirement{{Key: "zone", Operator: "In", Values: []string{"a"}}}}},
		{Weight: 0, Term: caldera.NodeSelectorTerm{MatchExpressions: []caldera.NodeSelectorRequirement{{Key: "zone", Operator: "In", Values: []string{"b"}}}}},
	}}
	tests := []struct {
		name  string
		nodes func([]caldera.Node)
		task  func(*caldera.Task)
		args  map[string]any
		want  []float64
	}{
		{name: "defaults", want: []float64{56 + 93 + 300, 87 + 100 + 300}},
		{name: "preferred affinity, normalised to 100, weight 2", task: func(t *caldera.Task) { t.NodeAffinity = prefer },
			want: []float64{56 + 93 + 300 + 200, 87 + 100 + 300}},
		{name: "untolerated PreferNoSchedule taint, reversed", nodes: func(ns []caldera.Node) {
			ns[1].Taints = []caldera.Taint{{Key: "soft", Effect: "PreferNoSchedule"}, {Key: "hard", Effect: "NoSchedule"}}
		}, want: []float64{56 + 93 + 300, 87 + 100}},
		{name: "tolerated taint", nodes: func(ns []caldera.Node) {
			ns[1].Taints = []caldera.Taint{{Key: "soft", Effect: "PreferNoSchedule"}}
		}, task: func(t *caldera.Task) { t.Tolerations = []caldera.Toleration{{Key: "soft", Operator: "Exists"}} },
			want: []float64{56 + 93 + 300, 87 + 100 + 300}},
		{name: "most requested, negative taint weight", args: map[string]any{"mostrequested.weight": int64(1), "leastrequested.weight": "0", "tainttoleration.weight": int64(-1)},
			// most: n1 (50 + 37)/2 = 43, n2 (12 + 12)/2 = 12
			want: []float64{43 + 93 - 100, 12 + 100 - 100}},
		{name: "a pod requesting nothing skips balanced", task: func(t *caldera.Task) {
			t.KubeRequest = caldera.KubeRequest{NonZeroMilliCPU: 100, NonZeroMemory: 200 << 20}
		},
			// least: n1 cpu (4000-1100)*100/4000 = 72, mem (8Gi-2Gi-200Mi)*100/8Gi = 72; n2 98, 97
			want: []float64{72 + 300, 97 + 300}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nodes, tk := twoNodes(), pending(request(1000, gi))
			if tt.nodes != nil {
				tt.nodes(nodes)
			}
			if tt.task != nil {
				tt.task(&tk)
			}
			p, s := open(t, nodes, []caldera.Task{tk}, []string{"predicates", "nodeorder"}, tt.args)
			if got := scores(t, p, s, 0); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestInvalidPreferredTermFailsScoring(t *testing.T) {
	tk := pending(request(1000, gi))
	tk.NodeAffinity = &caldera.NodeAffinity{Preferred: []caldera.PreferredTerm{{Weight: 1, Term: caldera.NodeSelectorTerm{
		MatchExpressions: []caldera.NodeSelectorRequirement{{Key: "zone", Operator: "Bogus"}}, Invalid: true}}}}
	p, s := open(t, twoNodes(), []caldera.Task{tk}, nil, nil)
	nodes := []*caldera.Node{&s.View.Nodes[0]}
	if err := p.NodeOrderBatch(s, &s.View.Tasks[0], nodes, make([]float64, 1)); err == nil {
		t.Error("scoring a pod with an unparsable preferred term succeeded")
	}
}

// Usage follows placements only when predicates is configured, as in Volcano.
func TestUsageFollowsPlacementsWithPredicates(t *testing.T) {
	for _, tt := range []struct {
		plugins []string
		want    []float64
	}{
		// After 4 cpu and 4Gi land on n2: least (37*50 + 37*50)/100 = 37,
		// balanced fractions 0.625, 0.625: 100.
		{[]string{"predicates"}, []float64{56 + 93 + 300, 37 + 100 + 300}},
		{nil, []float64{56 + 93 + 300, 87 + 100 + 300}},
	} {
		p, s := open(t, twoNodes(), []caldera.Task{pending(request(1000, gi)), pending(request(4000, 4*gi))}, tt.plugins, nil)
		scores(t, p, s, 0) // fill the caches before the placement
		placed := &s.View.Tasks[1]
		placed.Status, placed.Node = caldera.Allocated, 1
		p.OnAllocate(s, placed)
		if got := scores(t, p, s, 0); !slices.Equal(got, tt.want) {
			t.Errorf("plugins %v: got %v, want %v", tt.plugins, got, tt.want)
		}
		// Undone, the placement has lost its node in the view.
		placed.Status, placed.Node = caldera.Pending, -1
		p.OnDeallocate(s, placed)
		if got, want := scores(t, p, s, 0), []float64{56 + 93 + 300, 87 + 100 + 300}; !slices.Equal(got, want) {
			t.Errorf("plugins %v, placement undone: got %v, want %v", tt.plugins, got, want)
		}
	}
}

func manyNodes(n int) []caldera.Node {
	nodes := make([]caldera.Node, n)
	for i := range nodes {
		nodes[i] = node(fmt.Sprintf("n%d", i), int64(4000+i%4*1000), 8*gi, string(rune('a'+i%3)))
		nodes[i].KubeRequested = request(int64(i%7*250), int64(i%5)*gi)
		if i%4 == 0 {
			nodes[i].Taints = []caldera.Taint{{Key: "soft", Effect: "PreferNoSchedule"}}
		}
	}
	return nodes
}

func TestNodeOrderBatchAllocatesNothing(t *testing.T) {
	tk := pending(request(500, gi))
	tk.NodeAffinity = &caldera.NodeAffinity{Preferred: []caldera.PreferredTerm{{Weight: 3, Term: caldera.NodeSelectorTerm{
		MatchExpressions: []caldera.NodeSelectorRequirement{{Key: "zone", Operator: "In", Values: []string{"a"}}}}}}}
	p, s := open(t, manyNodes(200), []caldera.Task{tk}, []string{"predicates"}, nil)
	ptrs := make([]*caldera.Node, len(s.View.Nodes))
	for i := range ptrs {
		ptrs[i] = &s.View.Nodes[i]
	}
	out := make([]float64, len(ptrs))
	if allocs := testing.AllocsPerRun(10, func() { _ = p.NodeOrderBatch(s, &s.View.Tasks[0], ptrs, out) }); allocs != 0 {
		t.Errorf("NodeOrderBatch allocated %.0f times over %d nodes", allocs, len(ptrs))
	}
}

// BenchmarkNodeOrderBatch scores 1000 nodes for one task after a placement
// changed one node, the common case inside a gang.
func BenchmarkNodeOrderBatch(b *testing.B) {
	tk := pending(request(500, gi))
	p, s := open(b, manyNodes(1000), []caldera.Task{tk, pending(request(100, gi))}, []string{"predicates"}, nil)
	ptrs := make([]*caldera.Node, len(s.View.Nodes))
	for i := range ptrs {
		ptrs[i] = &s.View.Nodes[i]
	}
	out := make([]float64, len(ptrs))
	other := &s.View.Tasks[1]
	other.Status, other.Node = caldera.Allocated, 0
	b.ReportAllocs()
	for b.Loop() {
		p.OnAllocate(s, other)
		clear(out)
		_ = p.NodeOrderBatch(s, &s.View.Tasks[0], ptrs, out)
	}
}

// Whenever the port promises node-local scores, a node scores the same in
// any batch that holds it: the host adds kept scores of earlier batches
// to the scores of later, smaller ones.
func TestPromisedScoresDoNotDependOnTheBatch(t *testing.T) {
	tolerant := pending(request(500, gi))
	tolerant.Tolerations = []caldera.Toleration{{Key: "soft", Operator: "Exists"}}
	for _, c := range []struct {
		name    string
		taints  func(i int) []caldera.Taint
		promise bool
	}{
		{"no taints", func(int) []caldera.Taint { return nil }, true},
		{"one soft taint on some nodes", func(i int) []caldera.Taint {
			if i%4 != 0 {
				return nil
			}
			return []caldera.Taint{{Key: []string{"soft", "other"}[i%8/4], Effect: "PreferNoSchedule"}}
		}, true},
		{"two soft taints on a node, one on others", func(i int) []caldera.Taint {
			switch {
			case i == 3:
				return []caldera.Taint{{Key: "soft", Effect: "PreferNoSchedule"}, {Key: "other", Effect: "PreferNoSchedule"}}
			case i%4 == 0:
				return []caldera.Taint{{Key: "other", Effect: "PreferNoSchedule"}}
			}
			return nil
		}, false},
	} {
		nodes := manyNodes(40)
		for i := range nodes {
			nodes[i].Taints = c.taints(i)
		}
		p, s := open(t, nodes, []caldera.Task{pending(request(500, gi)), tolerant}, []string{"predicates"}, nil)
		if got := p.ScoresNodeLocal(s); got != c.promise {
			t.Fatalf("%s: promise %v, want %v", c.name, got, c.promise)
		}
		if !c.promise {
			continue
		}
		for task := range s.View.Tasks {
			all := scores(t, p, s, int32(task))
			for start := range 5 {
				var batch []*caldera.Node
				for i := start; i < len(nodes); i += 5 {
					batch = append(batch, &s.View.Nodes[i])
				}
				out := make([]float64, len(batch))
				if err := p.NodeOrderBatch(s, &s.View.Tasks[task], batch, out); err != nil {
					t.Fatal(err)
				}
				for j, n := range batch {
					if out[j] != all[n.Handle] {
						t.Errorf("%s, task %d: node %d scores %v in a batch of %d, %v in all", c.name, task, n.Handle, out[j], len(batch), all[n.Handle])
					}
				}
			}
		}
	}
}
