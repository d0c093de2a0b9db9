package nodeorder

// Resource weights of Volcano's least-requested configuration.
const leastRequestedResourceWeight int64 = 50

// leastRequestedScore is kube-scheduler's NodeResourcesFit LeastAllocated
// score: per resource (capacity-requested)*100/capacity, integer-divided, 0
// when over capacity, then the weighted mean, integer-divided. Requests
// include the defaults for containers that set none.
func leastRequestedScore(r *podRequests, ns *nodeState) int64 {
	u := ns.usage()
	var sum, weights int64
	if ns.allocCPU != 0 {
		sum += leastRequested(u.nonZeroCPU+r.nonZeroCPU, ns.allocCPU) * leastRequestedResourceWeight
		weights += leastRequestedResourceWeight
	}
	if ns.allocMem != 0 {
		sum += leastRequested(u.nonZeroMem+r.nonZeroMem, ns.allocMem) * leastRequestedResourceWeight
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
