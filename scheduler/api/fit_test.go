package api

import (
	"fmt"
	"math/rand"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestFitMatchesResourceComparisons checks the remembered answers against
// the plain Resource comparisons they replace, on random nodes that keep
// changing: every answer after a change must be recomputed.
func TestFitMatchesResourceComparisons(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	const gpu = v1.ResourceName("nvidia.com/gpu")
	var nodes []*NodeInfo
	for i := 0; i < 40; i++ {
		alloc := v1.ResourceList{
			v1.ResourceCPU:    *resource.NewMilliQuantity(int64(1000*(1+rng.Intn(8))), resource.DecimalSI),
			v1.ResourceMemory: *resource.NewQuantity(int64(1<<30*(1+rng.Intn(8))), resource.BinarySI),
			v1.ResourcePods:   *resource.NewQuantity(int64(2+rng.Intn(6)), resource.DecimalSI),
		}
		if i%3 == 0 {
			alloc[gpu] = *resource.NewQuantity(int64(rng.Intn(4)), resource.DecimalSI)
		}
		n := NewNodeInfo(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("n%d", i)}, Status: v1.NodeStatus{Allocatable: alloc}})
		n.Index = i
		nodes = append(nodes, n)
	}
	randomRequest := func() *Resource {
		r := &Resource{MilliCPU: float64(500 * rng.Intn(6)), Memory: float64(1 << 29 * rng.Intn(6))}
		r.AddScalar(v1.ResourcePods, 1)
		if rng.Intn(3) == 0 {
			r.AddScalar(gpu, float64(1000*rng.Intn(3)))
		}
		return r
	}
	cache := NewFitCache(nodes)
	requests := []*Resource{randomRequest(), randomRequest(), randomRequest(), randomRequest()}
	statuses := []TaskStatus{Running, Pipelined, Releasing, Allocated}
	var placed []struct {
		node *NodeInfo
		task *TaskInfo
	}
	for round := 0; round < 300; round++ {
		for _, req := range requests {
			f := cache.For(req)
			for _, n := range nodes {
				future := n.FutureIdle()
				if got, want := f.FitsFutureIdle(n), req.LessEqual(future, Zero); got != want {
					t.Fatalf("round %d: FitsFutureIdle(%s) = %v, LessEqual says %v", round, n.Name, got, want)
				}
				if got, want := f.FitsIdle(n), req.LessEqual(n.Idle, Zero); got != want {
					t.Fatalf("round %d: FitsIdle(%s) = %v, LessEqual says %v", round, n.Name, got, want)
				}
				want := ""
				if dims := req.InsufficientDimensions(future); len(dims) > 0 {
					want = dims[0]
				}
				if got := f.Shortfall(n); got != want {
					t.Fatalf("round %d: Shortfall(%s) = %q, want %q", round, n.Name, got, want)
				}
			}
		}
		// Change a few nodes: place a task, or take one away.
		for k := 0; k < 3; k++ {
			if len(placed) > 0 && rng.Intn(2) == 0 {
				i := rng.Intn(len(placed))
				placed[i].node.RemoveTask(placed[i].task)
				placed = append(placed[:i], placed[i+1:]...)
				continue
			}
			n := nodes[rng.Intn(len(nodes))]
			task := &TaskInfo{UID: TaskID(fmt.Sprintf("t%d-%d", round, k)), Status: statuses[rng.Intn(len(statuses))], Resreq: randomRequest()}
			n.AddTask(task)
			placed = append(placed, struct {
				node *NodeInfo
				task *TaskInfo
			}{n, task})
		}
	}
	if cache.For(requests[0].Clone()) != cache.For(requests[0]) {
		t.Error("equal requests got different Fits")
	}
}

// A node that is not at its Index in the cache's list is computed, not
// looked up: a stale slot of another node must never answer for it.
func TestFitIgnoresForeignNodes(t *testing.T) {
	small := testNode() // 4 cpu
	big := NewNodeInfo(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "big"},
		Status: v1.NodeStatus{Allocatable: v1.ResourceList{v1.ResourceCPU: resource.MustParse("64")}}})
	f := NewFitCache([]*NodeInfo{big}).For(&Resource{MilliCPU: 8000})
	if !f.FitsFutureIdle(big) {
		t.Fatal("8 cpu should fit the big node")
	}
	small.Index = 0 // claims big's slot
	if f.FitsFutureIdle(small) || f.Shortfall(small) != "cpu" {
		t.Errorf("8 cpu fits a 4-cpu node not in the list: shortfall %q", f.Shortfall(small))
	}
}
