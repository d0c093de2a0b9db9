package nodeorder

import (
	"sync"

	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// podRequests is a pod's requests in kube-scheduler's units: milli-cpu,
// bytes, and device counts.
type podRequests struct {
	cpu, mem, gpu int64
	// nonZeroCPU and nonZeroMem replace a container's missing request with
	// kube-scheduler's defaults.
	nonZeroCPU, nonZeroMem int64
}

func requestsOf(pod *v1.Pod) podRequests {
	r := api.PodScoringRequests(pod)
	return podRequests{cpu: r.MilliCPU, mem: r.Memory, gpu: r.GPU, nonZeroCPU: r.NonZeroMilliCPU, nonZeroMem: r.NonZeroMemory}
}

func (r *podRequests) add(o *podRequests, sign int64) {
	r.cpu += sign * o.cpu
	r.mem += sign * o.mem
	r.gpu += sign * o.gpu
	r.nonZeroCPU += sign * o.nonZeroCPU
	r.nonZeroMem += sign * o.nonZeroMem
}

// bestEffortForBalance says the pod requests none of the balanced
// resources, which makes kube-scheduler skip balanced allocation.
func (r *podRequests) bestEffortForBalance() bool { return r.cpu == 0 && r.mem == 0 && r.gpu == 0 }

// nodeState is a node as kube-scheduler's NodeInfo sees it: allocatable and
// the summed requests of its pods.
type nodeState struct {
	index int
	info  *api.NodeInfo
	// live says whether session placements change the usage (see doc.go).
	live bool

	once                        sync.Once
	allocCPU, allocMem, allocGP int64
	hasGPU                      bool
	// base sums the pods on the node at session open; delta follows the
	// session's placements and evictions.
	base, delta podRequests
	// version counts the changes to delta, for resourceScores.
	version uint64
}

// ensureUsage sums the node's pods the first time the node is needed. Tasks
// placed in this session are left out: they are in delta.
func (ns *nodeState) ensureUsage(p *Plugin) {
	ns.once.Do(func() {
		if n := ns.info.Node; n != nil {
			cpu, mem := n.Status.Allocatable[v1.ResourceCPU], n.Status.Allocatable[v1.ResourceMemory]
			ns.allocCPU, ns.allocMem = cpu.MilliValue(), mem.Value()
			if gpu, ok := n.Status.Allocatable[api.GPUResourceName]; ok {
				ns.hasGPU, ns.allocGP = true, gpu.Value()
			}
		}
		for id, t := range ns.info.Tasks {
			if p.placedOn[id] == ns {
				continue
			}
			r := p.requests.of(t.Pod)
			ns.base.add(&r, 1)
		}
	})
}

// usage is what the node's pods request now, as Volcano sees it.
func (ns *nodeState) usage() podRequests {
	u := ns.base
	if ns.live {
		u.add(&ns.delta, 1)
	}
	return u
}

// addPod follows one session placement (+1) or removal (-1).
func (ns *nodeState) addPod(pod *v1.Pod, p *Plugin, sign int64) {
	ns.ensureUsage(p)
	r := p.requestsOfCached(pod)
	ns.delta.add(&r, sign)
	ns.version++
}

// requestsOfCached returns a pod's requests, computing them once per session.
func (p *Plugin) requestsOfCached(pod *v1.Pod) podRequests {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e := p.pods[pod]; e != nil {
		return e.req
	}
	return p.requests.of(pod)
}
