package nodeorder

// mostRequestedScore is kube-scheduler's NodeResourcesFit MostAllocated
// score: per resource requested*100/capacity, integer-divided, with requests
// capped at capacity, then the mean over cpu and memory (weight 1 each).
func mostRequestedScore(r *podRequests, ns *nodeState) int64 {
	u := ns.usage()
	var sum, weights int64
	if ns.allocCPU != 0 {
		sum += mostRequested(u.nonZeroCPU+r.nonZeroCPU, ns.allocCPU)
		weights++
	}
	if ns.allocMem != 0 {
		sum += mostRequested(u.nonZeroMem+r.nonZeroMem, ns.allocMem)
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
