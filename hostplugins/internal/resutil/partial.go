package resutil

import (
	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// tolerance is the scheduler's: a quantity below it counts as none.
const tolerance = 0.1

// lessEqual compares within the tolerance.
func lessEqual(l, r float64) bool { return l < r || l-r < tolerance && r-l < tolerance }

// requested calls f for each dimension req asks for: cpu, memory and the
// positive scalars other than pods.
func requested(req *api.Resource, f func(name v1.ResourceName, q float64)) {
	if req.MilliCPU > 0 {
		f(v1.ResourceCPU, req.MilliCPU)
	}
	if req.Memory > 0 {
		f(v1.ResourceMemory, req.Memory)
	}
	for n, q := range req.Scalars {
		if n != v1.ResourcePods && q > 0 {
			f(n, q)
		}
	}
}

// AtMostInSome reports whether l is at most r (within the tolerance) in at
// least one dimension req asks for, leaving out the dimensions where l and
// r are both nothing: a queue that holds no GPU and deserves none cannot
// claim a share of GPUs it was never given. It also returns the dimensions
// that pass. Volcano's capacity plugin asks it whether a queue may reclaim.
func AtMostInSome(l, r, req *api.Resource) (bool, []string) {
	var dims []string
	requested(req, func(n v1.ResourceName, _ float64) {
		lq, rq := l.Get(n), r.Get(n)
		if lq < tolerance && rq < tolerance {
			return
		}
		if lessEqual(lq, rq) {
			dims = append(dims, string(n))
		}
	})
	return len(dims) > 0, dims
}

// AboveInSomeBounded reports whether l exceeds r in at least one dimension
// req asks for and r bounds: cpu or memory where r holds some, a scalar r
// names at all. It also returns those dimensions. Volcano's capacity plugin
// asks it whether a queue holds more than it deserves in what a victim
// would give back.
func AboveInSomeBounded(l, r, req *api.Resource) (bool, []string) {
	var dims []string
	requested(req, func(n v1.ResourceName, _ float64) {
		switch n {
		case v1.ResourceCPU, v1.ResourceMemory:
			if r.Get(n) < tolerance {
				return
			}
		default:
			if _, named := r.Scalars[n]; !named {
				return
			}
		}
		if l.Get(n) > r.Get(n) {
			dims = append(dims, string(n))
		}
	})
	return len(dims) > 0, dims
}

// Intersects reports whether a and b both hold some of one dimension (at
// or above the tolerance), pods counting only when withPods is set.
func Intersects(a, b *api.Resource, withPods bool) bool {
	for _, n := range a.ResourceNames() {
		if n == v1.ResourcePods && !withPods {
			continue
		}
		if !b.IsZero(n) {
			return true
		}
	}
	return false
}

// ExceedsBounded lists the dimensions in which l exceeds r beyond the
// tolerance, a scalar that r does not name counting as unbounded. A child
// queue's capability is checked against its parent's with it.
func ExceedsBounded(l, r *api.Resource) []string {
	var dims []string
	if !lessEqual(l.MilliCPU, r.MilliCPU) {
		dims = append(dims, string(v1.ResourceCPU))
	}
	if !lessEqual(l.Memory, r.Memory) {
		dims = append(dims, string(v1.ResourceMemory))
	}
	for n, q := range l.Scalars {
		if rq, named := r.Scalars[n]; named && !lessEqual(q, rq) {
			dims = append(dims, string(n))
		}
	}
	return dims
}
