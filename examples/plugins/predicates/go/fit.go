package main

import (
	"sort"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

// fit checks a task's request against a node's future idle resources
// (idle + releasing - pipelined), as the scheduler's api.Fit does. The view
// holds whole milli-units and bytes, so the scheduler's float tolerance
// (0.1) makes its "fits" exactly <=.
type fit struct {
	cpu, memory int64
	// scalars are the request's scalar dimensions, by name, as the scheduler
	// orders them to name the first that is short.
	scalars []scalarRequest
}

type scalarRequest struct {
	name   string
	q      int64
	reason string
}

const (
	reasonInsufficientCPU    = insufficientPrefix + "cpu"
	reasonInsufficientMemory = insufficientPrefix + "memory"
)

func newFit(r *caldera.Resource) fit {
	f := fit{cpu: r.MilliCPU, memory: r.Memory}
	for _, sc := range r.Scalars {
		f.scalars = append(f.scalars, scalarRequest{name: sc.Name, q: sc.Value, reason: insufficientPrefix + sc.Name})
	}
	sort.Slice(f.scalars, func(i, j int) bool { return f.scalars[i].name < f.scalars[j].name })
	return f
}

// shortfall returns "Insufficient <dimension>" for the first dimension in
// which the request exceeds the node's future idle resources, or "".
func (f *fit) shortfall(n *caldera.Node) string {
	idle, rel, pipe := &n.Idle, &n.Releasing, &n.Pipelined
	if f.cpu > idle.MilliCPU+rel.MilliCPU-pipe.MilliCPU {
		return reasonInsufficientCPU
	}
	if f.memory > idle.Memory+rel.Memory-pipe.Memory {
		return reasonInsufficientMemory
	}
	// The scheduler subtracts pipelined scalars only when idle or releasing
	// has any scalar at all.
	subPipelined := len(idle.Scalars) > 0 || len(rel.Scalars) > 0
	for i := range f.scalars {
		s := &f.scalars[i]
		avail := idle.Scalars.Get(s.name) + rel.Scalars.Get(s.name)
		if subPipelined {
			avail -= pipe.Scalars.Get(s.name)
		}
		if s.q > avail {
			return s.reason
		}
	}
	return ""
}
