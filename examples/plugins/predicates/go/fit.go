package main

import caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"

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

// newFit makes a task's fit. Its scalars are a window of the session's
// arena, which the next session reuses: no allocation per task once the
// arena has grown, where each one counts towards a TinyGo module's next
// collection. The SDK's Scalars are already sorted by name.
func newFit(r *caldera.Resource, a *fitArena) fit {
	f := fit{cpu: r.MilliCPU, memory: r.Memory}
	start := len(a.scalars)
	for _, sc := range r.Scalars {
		a.scalars = append(a.scalars, scalarRequest{name: sc.Name, q: sc.Value, reason: a.reason(sc.Name)})
	}
	f.scalars = a.scalars[start:len(a.scalars):len(a.scalars)]
	return f
}

// fitArena backs the fits of a session's tasks.
type fitArena struct {
	scalars []scalarRequest
	// reasons are "Insufficient <name>" by scalar name, made once each.
	reasons []namedReason
}

type namedReason struct{ name, reason string }

func (a *fitArena) reason(name string) string {
	for i := range a.reasons {
		if a.reasons[i].name == name {
			return a.reasons[i].reason
		}
	}
	r := insufficientPrefix + name
	a.reasons = append(a.reasons, namedReason{name, r})
	return r
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
