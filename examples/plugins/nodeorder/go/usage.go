package main

import caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"

// gpuResource is the third resource of Volcano's balanced allocation.
const gpuResource = "nvidia.com/gpu"

// nodeState is a node as kube-scheduler's NodeInfo sees it: allocatable and
// the summed requests of its pods.
type nodeState struct {
	allocCPU, allocMem, allocGPU int64
	hasGPU                       bool
	// base sums the pods on the node at session open; delta follows the
	// session's placements and evictions.
	base, delta caldera.KubeRequest
	// version counts the changes to delta, for resourceScores.
	version uint64
}

func (ns *nodeState) init(n *caldera.Node) {
	// The view's allocatable is the node's status.allocatable: milli-CPU and
	// bytes as kube-scheduler reads them, scalars in milli-units, which
	// round up to whole devices as Quantity.Value does.
	ns.allocCPU, ns.allocMem = n.Allocatable.MilliCPU, n.Allocatable.Memory
	if milli, ok := n.Allocatable.Scalars.Lookup(gpuResource); ok {
		ns.hasGPU = true
		ns.allocGPU = ceilDiv(milli, 1000)
	}
	ns.base = n.KubeRequested
}

// ceilDiv divides rounding towards positive infinity.
func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) == (b < 0) {
		q++
	}
	return q
}

// usage is what the node's pods request now, as Volcano sees it.
func (ns *nodeState) usage(live bool) caldera.KubeRequest {
	u := ns.base
	if live {
		addRequest(&u, &ns.delta, 1)
	}
	return u
}

func addRequest(r, o *caldera.KubeRequest, sign int64) {
	r.MilliCPU += sign * o.MilliCPU
	r.Memory += sign * o.Memory
	r.GPU += sign * o.GPU
	r.NonZeroMilliCPU += sign * o.NonZeroMilliCPU
	r.NonZeroMemory += sign * o.NonZeroMemory
}

// OnAllocate adds a placed, pipelined or unevicted task's requests to its
// node, and counts its pod for the pod rules. Placements are remembered
// even when usage does not follow them.
func (p *plugin) OnAllocate(_ *caldera.Session, task *caldera.Task) {
	if p.live && p.rules != nil {
		p.rules.idx.Add(task)
	}
	if task.Node < 0 {
		return
	}
	if task.Status == caldera.Allocated || task.Status == caldera.Pipelined {
		p.entries[task.Handle].placedOn = task.Node
	}
	if p.live {
		p.nodes[task.Node].addTask(task, 1)
	}
}

// OnDeallocate removes an evicted task's requests from its node, or an
// undone placement's from the node it had been placed on.
func (p *plugin) OnDeallocate(_ *caldera.Session, task *caldera.Task) {
	if !p.live {
		return
	}
	if p.rules != nil {
		p.rules.idx.Remove(task)
	}
	node := task.Node
	if node < 0 {
		node = p.entries[task.Handle].placedOn
	}
	if node >= 0 {
		p.nodes[node].addTask(task, -1)
	}
}

func (ns *nodeState) addTask(task *caldera.Task, sign int64) {
	addRequest(&ns.delta, &task.KubeRequest, sign)
	ns.version++
}
