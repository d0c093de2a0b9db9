package main

import caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"

// nodeState is what the filters keep of a node besides the view.
type nodeState struct {
	// pods is the number of pods Volcano counts on the node: those there at
	// session open (releasing ones included), plus tasks placed in the
	// session, minus tasks evicted in it.
	pods    int32
	maxPods int32
	// ports are the host ports in use by the pods counted in pods.
	ports []portUse
	// taints holds, per taint, the rejection reason of an untolerated
	// NoSchedule or NoExecute taint, alone and after the pod-count reason.
	taints []taintReason
}

// taintReason is a taint's rejection reasons, with the key and value they
// were made for: the next session's state keeps them while those stay.
type taintReason struct {
	key, value     string
	alone, tooMany string
}

// portUse is a host port and how many counted pods use it.
type portUse struct {
	caldera.HostPort
	n int32
}

// Stable-filter reasons after the pod-count reason, which comes first when
// both apply.
const (
	reasonTooManyUnschedulable = tooManyPrefix + reasonUnschedulable
	reasonTooManyNodeAffinity  = tooManyPrefix + reasonNodeAffinity
)

// init makes ns the node's state at session open. It keeps the arrays of
// the state it held in the previous session, and that state's taint
// reasons where the taint is the same: opening a session then makes no
// string and no array per node.
func (ns *nodeState) init(n *caldera.Node) {
	old := ns.taints
	*ns = nodeState{
		pods:    n.Pods,
		maxPods: int32(n.Allocatable.Scalar("pods")),
		ports:   ns.ports[:0],
		taints:  old[:0],
	}
	ns.usePorts(n.HostPorts, 1)
	for i := range n.Taints {
		t := &n.Taints[i]
		var r taintReason
		switch {
		case !doNotSchedule(t):
		case i < len(old) && old[i].alone != "" && old[i].key == t.Key && old[i].value == t.Value:
			r = old[i] // read before the append below overwrites slot i
		default:
			alone := "node(s) had untolerated taint {" + t.Key + ": " + t.Value + "}"
			r = taintReason{key: t.Key, value: t.Value, alone: alone, tooMany: tooManyPrefix + alone}
		}
		ns.taints = append(ns.taints, r)
	}
}

// reason returns the message of a failed stable verdict.
func (ns *nodeState) reason(v verdict, tooMany bool) string {
	switch {
	case v == unschedulable && tooMany:
		return reasonTooManyUnschedulable
	case v == unschedulable:
		return reasonUnschedulable
	case v == affinityMismatch && tooMany:
		return reasonTooManyNodeAffinity
	case v == affinityMismatch:
		return reasonNodeAffinity
	case tooMany:
		return ns.taints[v-taintBase].tooMany
	}
	return ns.taints[v-taintBase].alone
}

// usePorts counts ports in (delta 1) or out (delta -1).
func (ns *nodeState) usePorts(ports []caldera.HostPort, delta int32) {
next:
	for _, hp := range ports {
		for i := range ns.ports {
			if ns.ports[i].HostPort == hp {
				ns.ports[i].n += delta
				continue next
			}
		}
		ns.ports = append(ns.ports, portUse{HostPort: hp, n: delta})
	}
}

// portsTaken reports whether a wanted port conflicts with one in use: same
// protocol and port, and the same address or one of them binding all.
func (ns *nodeState) portsTaken(want []caldera.HostPort) bool {
	for i := range ns.ports {
		used := &ns.ports[i]
		if used.n <= 0 {
			continue
		}
		for j := range want {
			w := &want[j]
			if w.Port == used.Port && w.Protocol == used.Protocol &&
				(w.IP == used.IP || w.IP == allHostIPs || used.IP == allHostIPs) {
				return true
			}
		}
	}
	return false
}

// allHostIPs is the host IP that binds every address.
const allHostIPs = "0.0.0.0"

// entry is what the filters keep of one task.
type entry struct {
	tpl *template
	fit fit
	// placedOn is the node of the task's placement in this session, -1
	// when none; evictedFrom the node it was evicted from, -1 when none.
	placedOn, evictedFrom int32
}

// OnAllocate follows placements (the task now counts on its node) and
// undone evictions (it counts again).
func (p *plugin) OnAllocate(_ *caldera.Session, task *caldera.Task) {
	if p.rules != nil {
		p.rules.idx.Add(task)
	}
	e := &p.entries[task.Handle]
	if e.evictedFrom >= 0 {
		ns := &p.nodes[e.evictedFrom]
		ns.pods++
		ns.usePorts(task.HostPorts, 1)
		e.evictedFrom = -1
	}
	if (task.Status == caldera.Allocated || task.Status == caldera.Pipelined) && task.Node >= 0 && e.placedOn != task.Node {
		// The scheduler re-accounts a task placed again on the same node.
		ns := &p.nodes[task.Node]
		ns.pods++
		ns.usePorts(task.HostPorts, 1)
		e.placedOn = task.Node
	}
}

// OnDeallocate follows evictions, which leave the task on its node as
// Releasing but stop Volcano counting it, and undone placements, which take
// it off the node.
func (p *plugin) OnDeallocate(_ *caldera.Session, task *caldera.Task) {
	if p.rules != nil {
		p.rules.idx.Remove(task)
	}
	e := &p.entries[task.Handle]
	if task.Status == caldera.Releasing {
		if task.Node >= 0 && e.evictedFrom < 0 {
			ns := &p.nodes[task.Node]
			ns.pods--
			ns.usePorts(task.HostPorts, -1)
			e.evictedFrom = task.Node
		}
		return
	}
	if e.placedOn >= 0 {
		ns := &p.nodes[e.placedOn]
		ns.pods--
		ns.usePorts(task.HostPorts, -1)
		e.placedOn = -1
	}
}
