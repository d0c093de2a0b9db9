package nodeorder

import "math"

// balancedScore is kube-scheduler's NodeResourcesBalancedAllocation score
// over cpu, memory and nvidia.com/gpu: 100*(1-σ) truncated, where σ is the
// standard deviation of the used fractions (each capped at 1), taken as
// |f1-f2|/2 for two resources. The GPU counts only when the pod asks for one
// and the node has it. Requests are taken as written, without defaults.
func balancedScore(r *podRequests, ns *nodeState) int64 {
	u := ns.usage()
	var fractions [3]float64
	n := 0
	addFraction := func(requested, capacity int64) {
		if capacity == 0 {
			return
		}
		fractions[n] = min(float64(requested)/float64(capacity), 1)
		n++
	}
	addFraction(u.cpu+r.cpu, ns.allocCPU)
	addFraction(u.mem+r.mem, ns.allocMem)
	if r.gpu != 0 && ns.hasGPU {
		addFraction(u.gpu+r.gpu, ns.allocGP)
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
