package main

import (
	"strings"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

// resource is the scheduler's api.Resource: float quantities, and scalars
// whose presence matters (a dimension may be absent, and a resource may
// have none: nil).
type resource struct {
	milliCPU, memory float64
	scalars          scalarList
}

// scalarList holds scalar dimensions in a short list, not a Go map, as the
// proportion port's does: under TinyGo each lookup in a map with string
// keys allocates, and session open adds every node's scalars; the
// allocations made the collector mark the whole view (139 ms of a session
// at 5,000 nodes).
type scalarList []scalarQty

type scalarQty struct {
	name string
	q    float64
}

// value returns the quantity of the dimension name, 0 when absent.
func (l scalarList) value(name string) float64 {
	for i := range l {
		if l[i].name == name {
			return l[i].q
		}
	}
	return 0
}

// at returns a pointer to the quantity of the dimension name, appending
// it at 0 when absent; the pointer is valid until the list grows.
func (l *scalarList) at(name string) *float64 {
	for i := range *l {
		if (*l)[i].name == name {
			return &(*l)[i].q
		}
	}
	*l = append(*l, scalarQty{name: name})
	return &(*l)[len(*l)-1].q
}

func (r *resource) addView(d *caldera.Resource) {
	r.milliCPU += float64(d.MilliCPU)
	r.memory += float64(d.Memory)
	for _, sc := range d.Scalars {
		*r.scalars.at(sc.Name) += float64(sc.Value)
	}
}

func (r *resource) add(d *resource) {
	r.milliCPU += d.milliCPU
	r.memory += d.memory
	for _, e := range d.scalars {
		*r.scalars.at(e.name) += e.q
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
	for _, e := range d.scalars {
		*r.scalars.at(e.name) -= e.q
	}
}

func (r *resource) multi(ratio float64) {
	r.milliCPU *= ratio
	r.memory *= ratio
	for i := range r.scalars {
		r.scalars[i].q *= ratio
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
		if held.scalars.value(n)+float64(q) > limit.scalars.value(n) {
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
	*r.scalars.at(n) = q
}
