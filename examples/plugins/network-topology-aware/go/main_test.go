package main

import (
	"testing"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

// A two-tier fabric: the cluster top (2) above leaf-a (nodes 0, 1) and
// leaf-b (node 2); a hard job of tier 1 with one task on node 0 and one
// pending.
func fabric(t *testing.T) (*caldera.Session, *plugin) {
	t.Helper()
	tier := int32(1)
	cpu := func(m int64) caldera.Resource { return caldera.Resource{MilliCPU: m} }
	v := caldera.View{
		Nodes: []caldera.Node{
			{Name: "a0", Allocatable: cpu(4000), Used: cpu(2000), Idle: cpu(2000)},
			{Name: "a1", Allocatable: cpu(4000), Idle: cpu(4000)},
			{Name: "b0", Allocatable: cpu(4000), Idle: cpu(4000)},
		},
		Jobs: []caldera.Job{{Name: "j", MinResources: cpu(4000), NetworkTopology: &caldera.NetworkTopology{Mode: caldera.TopologyHard, HighestTier: &tier}}},
		Tasks: []caldera.Task{
			{Name: "t0", Job: 0, Status: caldera.Running, Node: 0, Request: cpu(2000), InitRequest: cpu(2000)},
			{Name: "t1", Job: 0, Status: caldera.Pending, Node: -1, Request: cpu(2000), InitRequest: cpu(2000)},
		},
		HyperNodes: caldera.HyperNodes{
			{Name: "<cluster-top-hypernode>", Tier: 2, Parent: -1},
			{Name: "leaf-a", Tier: 1, Parent: 0, Nodes: []int32{0, 1}},
			{Name: "leaf-b", Tier: 1, Parent: 0, Nodes: []int32{2}},
		},
	}
	s := caldera.NewSession(v, nil)
	p := &plugin{}
	if err := p.OnSessionOpen(s); err != nil {
		t.Fatal(err)
	}
	return s, p
}

func names(gs [][]*caldera.HyperNode) [][]string {
	var out [][]string
	for _, g := range gs {
		var ns []string
		for _, h := range g {
			ns = append(ns, h.Name)
		}
		out = append(out, ns)
	}
	return out
}

// The job's search offers the leaves of its tier with idle room for its
// minResources (leaf-a has 4 CPUs idle, leaf-b 4); once it is placed in
// leaf-a it is confined there; for eviction the widest gradient comes
// first.
func TestGradients(t *testing.T) {
	s, p := fabric(t)
	v := &s.View
	job := &v.Jobs[0]
	top := &v.HyperNodes[0]
	got := names(p.HyperNodeGradient(s, caldera.HyperNodeSearch{Job: job, Within: top}))
	if len(got) != 1 || len(got[0]) != 2 || got[0][0] != "leaf-a" || got[0][1] != "leaf-b" {
		t.Errorf("gradients %v, want [[leaf-a leaf-b]]", got)
	}
	got = names(p.HyperNodeGradient(s, caldera.HyperNodeSearch{Job: job, Within: top, Allocated: &v.HyperNodes[1]}))
	if len(got) != 1 || len(got[0]) != 1 || got[0][0] != "leaf-a" {
		t.Errorf("placed in leaf-a: gradients %v, want [[leaf-a]]", got)
	}
	*job.NetworkTopology.HighestTier = 2
	got = names(p.HyperNodeGradient(s, caldera.HyperNodeSearch{Job: job, Within: top, Purpose: caldera.PurposeEvict}))
	if len(got) != 2 || got[0][0] != "<cluster-top-hypernode>" || len(got[1]) != 2 {
		t.Errorf("eviction gradients %v, want the top first, then both leaves", got)
	}
}

// A hypernode scores how full the job's 4 CPUs would leave it: leaf-a 6
// of its 8 (it holds the running task's 2 already), leaf-b all 4.
func TestHyperNodeOrder(t *testing.T) {
	s, p := fabric(t)
	v := &s.View
	scores := make([]float64, 2)
	if err := p.HyperNodeOrder(s, caldera.HyperNodeSearch{Job: &v.Jobs[0]}, []*caldera.HyperNode{&v.HyperNodes[1], &v.HyperNodes[2]}, scores); err != nil {
		t.Fatal(err)
	}
	if want := []float64{100 * 6.0 / 8, 100}; scores[0] != want[0] || scores[1] != want[1] {
		t.Errorf("scores %v, want %v", scores, want)
	}
}
