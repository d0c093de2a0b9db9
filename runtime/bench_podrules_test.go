package runtime

import (
	"context"
	"fmt"
	"testing"

	"github.com/caldera-scheduler/caldera/abi"
)

// podRulesView is the session benchmark's pod-rules cluster in small:
// nodes in ten zones, and three gangs of ten, the first without rules,
// the second with required hostname anti-affinity among its own pods, the
// third with zone spread (maxSkew 1, DoNotSchedule).
func podRulesView(nodes int) abi.View {
	var v abi.View
	for i := range nodes {
		r := abi.Resource{MilliCPU: 32000, Memory: 128 << 30, Scalars: map[string]int64{"pods": 110}}
		name := fmt.Sprintf("node-%05d", i)
		v.Nodes = append(v.Nodes, abi.Node{Name: name, Allocatable: r, Idle: r,
			Labels: map[string]string{"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": fmt.Sprintf("zone-%d", i%10)}})
	}
	v.Queues = []abi.Queue{{Name: "default", Weight: 1}}
	for g := range 3 {
		name := fmt.Sprintf("gang-%d", g)
		v.Jobs = append(v.Jobs, abi.Job{Namespace: "bench", Name: name, MinAvailable: 10})
		sel := &abi.Selector{Requirements: []abi.NodeSelectorRequirement{{Key: "app", Operator: "In", Values: []string{name}}}}
		for k := range 10 {
			r := abi.Resource{MilliCPU: 1000, Memory: 2 << 30}
			t := abi.Task{Namespace: "bench", Name: fmt.Sprintf("%s-%d", name, k), Job: int32(g), Node: -1, Status: "Pending",
				Labels: map[string]string{"app": name}, Request: r, InitRequest: r}
			switch g {
			case 1:
				t.PodAntiAffinity = &abi.PodAffinity{Required: []abi.PodAffinityTerm{{Selector: sel, Namespaces: []string{"bench"}, TopologyKey: "kubernetes.io/hostname"}}}
			case 2:
				t.SpreadConstraints = []abi.SpreadConstraint{{MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: "DoNotSchedule",
					Selector: sel, MinDomains: 1, NodeAffinityPolicy: "Honor", NodeTaintsPolicy: "Ignore"}}
			}
			v.Tasks = append(v.Tasks, t)
		}
	}
	return v
}

// BenchmarkPodRulesPredicate is the predicates port's predicate_batch
// with pod rules in the session, per call and per node asked, every node
// passing: a call about one node shows the fixed cost, one about 512 the
// cost per node (the SDK's decoding and encoding, the filters, the
// host's side).
func BenchmarkPodRulesPredicate(b *testing.B) {
	view := podRulesView(5000)
	for _, build := range []string{"tinygo", "go"} {
		for _, c := range []struct {
			name  string
			task  int32
			nodes int
		}{{"plain/nodes=1", 0, 1}, {"plain/nodes=512", 0, 512}, {"anti-affinity/nodes=512", 10, 512}, {"spread/nodes=512", 20, 512}} {
			b.Run(build+"/"+c.name, func(b *testing.B) {
				l := openLease(b, "predicates."+build, DefaultLimits(), view)
				var pre abi.Verdict
				if code, msg, err := l.Call(context.Background(), abi.HookPrePredicate, abi.Request{Args: abi.TaskArgs{Task: c.task}}, &pre); err != nil || code != abi.OK {
					b.Fatalf("pre_predicate: %d %s %v", code, msg, err)
				}
				args := abi.Request{Args: abi.BatchArgs{Task: c.task, Nodes: sequence(c.nodes)}}
				var out []abi.Verdict
				b.ResetTimer()
				for range b.N {
					if code, msg, err := l.Call(context.Background(), abi.HookPredicateBatch, args, &out); err != nil || code != abi.OK {
						b.Fatalf("predicate_batch: %d %s %v", code, msg, err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*c.nodes), "ns/node")
			})
		}
	}
}
