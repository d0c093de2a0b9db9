package main

import (
	"math"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

// bestEffortForBalance says the pod requests none of the balanced
// resources, which makes kube-scheduler skip balanced allocation.
func bestEffortForBalance(r *caldera.KubeRequest) bool {
	return r.MilliCPU == 0 && r.Memory == 0 && r.GPU == 0
}

// Resource weights of Volcano's least-requested configuration.
const leastRequestedResourceWeight int64 = 50

// leastRequestedScore is kube-scheduler's NodeResourcesFit LeastAllocated
// score: per resource (capacity-requested)*100/capacity, integer-divided, 0
// when over capacity, then the weighted mean, integer-divided. Requests
// include the defaults for containers that set none.
func leastRequestedScore(r *caldera.KubeRequest, ns *nodeState, u *caldera.KubeRequest) int64 {
	var sum, weights int64
	if ns.allocCPU != 0 {
		sum += leastRequested(u.NonZeroMilliCPU+r.NonZeroMilliCPU, ns.allocCPU) * leastRequestedResourceWeight
		weights += leastRequestedResourceWeight
	}
	if ns.allocMem != 0 {
		sum += leastRequested(u.NonZeroMemory+r.NonZeroMemory, ns.allocMem) * leastRequestedResourceWeight
		weights += leastRequestedResourceWeight
	}
	if weights == 0 {
		return 0
	}
	return sum / weights
}

func leastRequested(requested, capacity int64) int64 {
	if capacity == 0 || requested > capacity {
		return 0
	}
	return (capacity - requested) * maxNodeScore / capacity
}

// mostRequestedScore is kube-scheduler's NodeResourcesFit MostAllocated
// score: per resource requested*100/capacity, integer-divided, with requests
// capped at capacity, then the mean over cpu and memory (weight 1 each).
func mostRequestedScore(r *caldera.KubeRequest, ns *nodeState, u *caldera.KubeRequest) int64 {
	var sum, weights int64
	if ns.allocCPU != 0 {
		sum += mostRequested(u.NonZeroMilliCPU+r.NonZeroMilliCPU, ns.allocCPU)
		weights++
	}
	if ns.allocMem != 0 {
		sum += mostRequested(u.NonZeroMemory+r.NonZeroMemory, ns.allocMem)
		weights++
	}
	if weights == 0 {
		return 0
	}
	return sum / weights
}

func mostRequested(requested, capacity int64) int64 {
	if capacity == 0 {
		return 0
	}
	requested = min(requested, capacity)
	return requested * maxNodeScore / capacity
}

// balancedScore is kube-scheduler's NodeResourcesBalancedAllocation score
// over cpu, memory and nvidia.com/gpu: 100*(1-σ) truncated, where σ is the
// standard deviation of the used fractions (each capped at 1), taken as
// |f1-f2|/2 for two resources. The GPU counts only when the pod asks for one
// and the node has it. Requests are taken as written, without defaults.
func balancedScore(r *caldera.KubeRequest, ns *nodeState, u *caldera.KubeRequest) int64 {
	var fractions [3]float64
	n := 0
	if ns.allocCPU != 0 {
		fractions[n] = min(float64(u.MilliCPU+r.MilliCPU)/float64(ns.allocCPU), 1)
		n++
	}
	if ns.allocMem != 0 {
		fractions[n] = min(float64(u.Memory+r.Memory)/float64(ns.allocMem), 1)
		n++
	}
	if r.GPU != 0 && ns.hasGPU && ns.allocGPU != 0 {
		fractions[n] = min(float64(u.GPU+r.GPU)/float64(ns.allocGPU), 1)
		n++
	}
	var std float64
	switch {
	case n == 2:
		std = math.Abs((fractions[0] - fractions[1]) / 2)
	case n > 2:
		var total float64
		for _, f := range fractions[:n] {
			total += f
		}
		mean := total / float64(n)
		var sum float64
		for _, f := range fractions[:n] {
			sum += (f - mean) * (f - mean)
		}
		std = math.Sqrt(sum / float64(n))
	}
	return int64((1 - std) * float64(maxNodeScore))
}

// resourceScores remembers, for one request shape, the three resource
// strategies' raw scores per node, valid while the node's usage is
// unchanged. The tasks of a gang share a request, and between two of its
// placements only one node changes, so most nodes are scored once per
// session instead of once per task.
type resourceScores struct {
	slots []resourceSlot
}

type resourceSlot struct {
	// tag is the node's usage version plus one; 0 means empty.
	tag                   uint64
	least, most, balanced int64
}

func newResourceScores(nodeCount int) *resourceScores {
	return &resourceScores{slots: make([]resourceSlot, nodeCount)}
}

// of returns the raw least-requested, most-requested and balanced scores of
// r on the node.
func (s *resourceScores) of(r *caldera.KubeRequest, ns *nodeState, handle int32, live bool) (least, most, balanced int64) {
	slot := &s.slots[handle]
	if slot.tag != ns.version+1 {
		u := ns.usage(live)
		*slot = resourceSlot{
			tag:      ns.version + 1,
			least:    leastRequestedScore(r, ns, &u),
			most:     mostRequestedScore(r, ns, &u),
			balanced: balancedScore(r, ns, &u),
		}
	}
	return slot.least, slot.most, slot.balanced
}
