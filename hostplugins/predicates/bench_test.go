package predicates

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// benchSession is the shape of the session benchmark: many nodes, gangs of
// pods made from one template each; a tenth of the nodes are tainted and the
// pods carry a node selector that most nodes match.
func benchSession(b *testing.B, nodeCount, podCount int) (*Plugin, []*api.TaskInfo, []*api.NodeInfo) {
	var nodes []*v1.Node
	for i := 0; i < nodeCount; i++ {
		n := withLabels(node(fmt.Sprintf("n%05d", i), rl("cpu", "32", "memory", "128Gi", "pods", "110")), "pool", fmt.Sprint("p", i%4))
		if i%10 == 0 {
			n = withTaints(n, gpuTaint)
		}
		nodes = append(nodes, n)
	}
	var pods []*v1.Pod
	for i := 0; i < podCount; i++ {
		p := pod(fmt.Sprintf("p%05d", i), "", rl("cpu", "1", "memory", "2Gi"))
		withSelector(p, "pool", fmt.Sprint("p", (i/10)%3))
		pods = append(pods, p)
	}
	ssn := openSession(b, config(""), nodes, pods)
	var tasks []*api.TaskInfo
	for _, j := range ssn.Jobs {
		for _, t := range j.Tasks {
			tasks = append(tasks, t)
		}
	}
	return ssn.Plugins()[0].(*Plugin), tasks, ssn.NodeList
}

func BenchmarkPredicate(b *testing.B) {
	p, tasks, nodes := benchSession(b, 5000, 100)
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		t, n := tasks[(i/len(nodes))%len(tasks)], nodes[i%len(nodes)]
		p.Predicate(t, n)
		i++
	}
}

// BenchmarkPredicateFit measures a node that passes every filter.
func BenchmarkPredicateFit(b *testing.B) {
	p, tasks, nodes := benchSession(b, 100, 10)
	t := tasks[0]
	var n *api.NodeInfo
	for _, c := range nodes {
		if p.Predicate(t, c) == nil {
			n = c
			break
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if st := p.Predicate(t, n); st != nil {
			b.Fatal(st)
		}
	}
}
