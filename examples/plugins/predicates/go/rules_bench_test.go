package main

import (
	"fmt"
	"testing"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

// benchView is the session benchmark's pod-rules workload (benchmarks/
// workload.go): nodes in ten zones, gangs of ten, a fifth with required
// hostname anti-affinity among their own pods, a fifth with zone spread.
func benchView(nodes, gangs int) caldera.View {
	var v caldera.View
	for i := range nodes {
		name := fmt.Sprintf("node-%05d", i)
		v.Nodes = append(v.Nodes, caldera.Node{Name: name,
			Labels:      map[string]string{"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": fmt.Sprintf("zone-%d", i%10)},
			Allocatable: caldera.Resource{MilliCPU: 32000, Memory: 128 << 30, Scalars: caldera.Scalars{{Name: "pods", Value: 110}}},
			Idle:        caldera.Resource{MilliCPU: 32000, Memory: 128 << 30, Scalars: caldera.Scalars{{Name: "pods", Value: 110}}}})
	}
	for g := range gangs {
		name := fmt.Sprintf("gang-%05d", g)
		v.Jobs = append(v.Jobs, caldera.Job{Namespace: "bench", Name: name})
		sel := &caldera.Selector{Requirements: []caldera.NodeSelectorRequirement{{Key: "app", Operator: "In", Values: []string{name}}}}
		for i := range 10 {
			t := caldera.Task{Namespace: "bench", Name: fmt.Sprintf("%s-%d", name, i), Job: int32(g), Node: -1, Status: caldera.Pending,
				Labels: map[string]string{"app": name}, Request: caldera.Resource{MilliCPU: 1000, Memory: 2 << 30},
				InitRequest: caldera.Resource{MilliCPU: 1000, Memory: 2 << 30}}
			switch g % 5 {
			case 0:
				t.PodAntiAffinity = &caldera.PodAffinity{Required: []caldera.PodAffinityTerm{{Selector: sel, Namespaces: []string{"bench"}, TopologyKey: "kubernetes.io/hostname"}}}
			case 1:
				t.SpreadConstraints = []caldera.SpreadConstraint{{MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: "DoNotSchedule",
					Selector: sel, MinDomains: 1, NodeAffinityPolicy: "Honor", NodeTaintsPolicy: "Ignore"}}
			}
			v.Tasks = append(v.Tasks, t)
		}
	}
	return v
}

// BenchmarkRulesSession runs an allocate-like pass natively: each task's
// PrePredicate, PredicateBatch over windows of 256 then 512 nodes from
// where the last search stopped, and its placement on the first node that
// passes (profile it with -cpuprofile to see the port's hot spots).
func BenchmarkRulesSession(b *testing.B) {
	for range b.N {
		b.StopTimer()
		s := caldera.NewSession(benchView(5000, 1000), nil)
		p := &plugin{}
		if err := p.OnSessionOpen(s); err != nil {
			b.Fatal(err)
		}
		nodes := make([]*caldera.Node, len(s.View.Nodes))
		for i := range s.View.Nodes {
			nodes[i] = &s.View.Nodes[i]
		}
		verdicts := make([]caldera.Verdict, 768)
		b.StartTimer()
		next := 0
		for ti := range s.View.Tasks {
			t := &s.View.Tasks[ti]
			p.PrePredicate(s, t)
			placed := false
			for _, size := range []int{256, 512} {
				window := make([]*caldera.Node, 0, size)
				for i := range size {
					window = append(window, nodes[(next+i)%len(nodes)])
				}
				clear(verdicts)
				p.PredicateBatch(s, t, window, verdicts[:size])
				for i, v := range verdicts[:size] {
					if v == caldera.Pass {
						t.Node, t.Status = window[i].Handle, caldera.Allocated
						p.OnAllocate(s, t)
						next = (next + i + 1) % len(nodes)
						placed = true
						break
					}
				}
				if placed {
					break
				}
			}
		}
	}
}
