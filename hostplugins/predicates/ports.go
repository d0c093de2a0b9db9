package predicates

import (
	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// allHostIPs is the host IP that binds every address.
const allHostIPs = "0.0.0.0"

// hostPort is one host port of a container, with kube-scheduler's defaults
// filled in.
type hostPort struct {
	ip       string
	protocol string
	port     int32
}

// wantedPorts lists the host ports of a pod's containers, as kube-scheduler's
// NodePorts plugin and NodeInfo do (init containers are not looked at).
func wantedPorts(pod *v1.Pod) []hostPort {
	var out []hostPort
	for i := range pod.Spec.Containers {
		for _, cp := range pod.Spec.Containers[i].Ports {
			if cp.HostPort <= 0 {
				continue
			}
			hp := hostPort{ip: cp.HostIP, protocol: string(cp.Protocol), port: cp.HostPort}
			if hp.ip == "" {
				hp.ip = allHostIPs
			}
			if hp.protocol == "" {
				hp.protocol = string(v1.ProtocolTCP)
			}
			out = append(out, hp)
		}
	}
	return out
}

// conflicts reports whether two host ports cannot both be bound: same
// protocol and port, and the same address or one of them binding all.
func (h hostPort) conflicts(o hostPort) bool {
	return h.port == o.port && h.protocol == o.protocol &&
		(h.ip == o.ip || h.ip == allHostIPs || o.ip == allHostIPs)
}

// portsTaken reports whether a wanted port is in use by a pod Volcano counts
// on the node (those evicted in this session no longer are).
func (p *Plugin) portsTaken(want []hostPort, node *api.NodeInfo) bool {
	for id, t := range node.Tasks {
		if t.Pod == nil {
			continue
		}
		if _, gone := p.evictedHere[id]; gone {
			continue
		}
		for _, used := range wantedPorts(t.Pod) {
			for _, w := range want {
				if w.conflicts(used) {
					return true
				}
			}
		}
	}
	return false
}

// EachHostPort calls f for every host port of a pod's containers, as the
// NodePorts filter sees them (defaults filled in). The Wasm runtime sends
// them to the predicates port.
func EachHostPort(pod *v1.Pod, f func(ip, protocol string, port int32)) {
	for _, hp := range wantedPorts(pod) {
		f(hp.ip, hp.protocol, hp.port)
	}
}
