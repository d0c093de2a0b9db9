package main

import (
	"sort"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

// dimension is one resource dimension a share is measured in: cpu, memory
// or a named scalar.
type dimension struct {
	kind   int
	scalar string
}

const (
	dimCPU = iota
	dimMemory
	dimScalar
)

// of returns the dimension's quantity in r.
func (d *dimension) of(r *caldera.Resource) int64 {
	switch d.kind {
	case dimCPU:
		return r.MilliCPU
	case dimMemory:
		return r.Memory
	}
	return r.Scalars.Get(d.scalar)
}

// measured appends the dimensions of total that are not below the
// scheduler's 0.1 tolerance (at least 1 in whole units), scalars by name.
func measured(out []dimension, total *caldera.Resource) []dimension {
	if total.MilliCPU >= 1 {
		out = append(out, dimension{kind: dimCPU})
	}
	if total.Memory >= 1 {
		out = append(out, dimension{kind: dimMemory})
	}
	first := len(out)
	for _, sc := range total.Scalars {
		if sc.Value >= 1 {
			out = append(out, dimension{kind: dimScalar, scalar: sc.Name})
		}
	}
	sort.Slice(out[first:], func(i, j int) bool { return out[first+i].scalar < out[first+j].scalar })
	return out
}

// project writes r's quantity in each dimension to v.
func project(v []int64, dims []dimension, r *caldera.Resource) {
	for i := range dims {
		v[i] = dims[i].of(r)
	}
}

func addTo(r, d *caldera.Resource) {
	r.MilliCPU += d.MilliCPU
	r.Memory += d.Memory
	for _, sc := range d.Scalars {
		r.Scalars.Add(sc.Name, sc.Value)
	}
}

// allocatedStatus: the task holds node resources on behalf of its job.
func allocatedStatus(s string) bool {
	switch s {
	case caldera.Bound, caldera.Binding, caldera.Running, caldera.Allocated:
		return true
	}
	return false
}

// resize returns s with length n and every element zero, reusing its array
// when it is large enough.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}
