package main

import (
	"strings"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

// resource is the scheduler's api.Resource: float quantities, and scalars
// in a map whose keys matter (a dimension may be absent).
type resource struct {
	milliCPU, memory float64
	scalars          map[string]float64
}

func (r *resource) addView(d *caldera.Resource) {
	r.milliCPU += float64(d.MilliCPU)
	r.memory += float64(d.Memory)
	for _, sc := range d.Scalars {
		n, q := sc.Name, sc.Value
		if r.scalars == nil {
			r.scalars = map[string]float64{}
		}
		r.scalars[n] += float64(q)
	}
}

func (r *resource) add(d *resource) {
	r.milliCPU += d.milliCPU
	r.memory += d.memory
	for n, q := range d.scalars {
		if r.scalars == nil {
			r.scalars = map[string]float64{}
		}
		r.scalars[n] += q
	}
}

// sub subtracts d; like api.Resource.Sub it leaves scalars alone when r has
// none.
func (r *resource) sub(d *resource) {
	r.milliCPU -= d.milliCPU
	r.memory -= d.memory
	if r.scalars == nil {
		return
	}
	for n, q := range d.scalars {
		r.scalars[n] -= q
	}
}

func (r *resource) multi(ratio float64) {
	r.milliCPU *= ratio
	r.memory *= ratio
	for n, q := range r.scalars {
		r.scalars[n] = q * ratio
	}
}

// fitsRequested reports whether held plus req stays within limit in the
// dimensions req asks for (cpu, memory, positive scalars other than pods),
// with a strict comparison and no tolerance.
func fitsRequested(held *resource, req *caldera.Resource, limit *resource) bool {
	if req.MilliCPU > 0 && held.milliCPU+float64(req.MilliCPU) > limit.milliCPU {
		return false
	}
	if req.Memory > 0 && held.memory+float64(req.Memory) > limit.memory {
		return false
	}
	for _, sc := range req.Scalars {
		n, q := sc.Name, sc.Value
		if n == "pods" || q <= 0 {
			continue
		}
		if held.scalars[n]+float64(q) > limit.scalars[n] {
			return false
		}
	}
	return true
}

// allocatedStatus: the task holds node resources on behalf of its job.
func allocatedStatus(s string) bool {
	switch s {
	case caldera.Bound, caldera.Binding, caldera.Running, caldera.Allocated:
		return true
	}
	return false
}

// allocatedTaskNum counts the job's tasks that hold node resources.
func allocatedTaskNum(j *caldera.Job) int32 {
	n := int32(0)
	for _, t := range j.Tasks {
		if allocatedStatus(t.Status) {
			n++
		}
	}
	return n
}

// unmetMinResources is the part of the job's minResources that its
// allocated tasks do not cover yet: what an admitted job still has a claim
// on. Quota-style "count/..." names and ephemeral storage are skipped; a
// scalar dimension that nothing allocated reserves all of its minimum.
func unmetMinResources(j *caldera.Job) *resource {
	var allocated caldera.Resource
	for _, t := range j.Tasks {
		if allocatedStatus(t.Status) {
			allocated.MilliCPU += t.Request.MilliCPU
			allocated.Memory += t.Request.Memory
			for _, sc := range t.Request.Scalars {
				allocated.Scalars.Add(sc.Name, sc.Value)
			}
		}
	}
	need := &j.MinResources
	out := &resource{}
	if d := need.MilliCPU - allocated.MilliCPU; d > 0 {
		out.milliCPU = float64(d)
	}
	if d := need.Memory - allocated.Memory; d > 0 {
		out.memory = float64(d)
	}
	for _, sc := range need.Scalars {
		n, want := sc.Name, sc.Value
		switch {
		case n == "pods":
			if d := want - allocated.Scalars.Get(n); d > 0 {
				out.set(n, float64(d))
			}
		case strings.HasPrefix(n, "count/") || n == "ephemeral-storage":
		default:
			got, ok := allocated.Scalars.Lookup(n)
			if !ok {
				out.set(n, float64(want))
			} else if d := want - got; d > 0 {
				out.set(n, float64(d))
			}
		}
	}
	return out
}

func (r *resource) set(n string, q float64) {
	if r.scalars == nil {
		r.scalars = map[string]float64{}
	}
	r.scalars[n] = q
}
