package numaaware

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/utils/cpuset"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// The CPU manager hint provider, Volcano's only one (volcano-sh/volcano@8fc394c11e8d
// (v1.15.0) pkg/scheduler/plugins/numaaware/provider/cpumanager/cpu_mng.go),
// which restates the kubelet static CPU manager's topology hints.

// cpuResource is the one resource the provider hints for and assigns.
const cpuResource = string(v1.ResourceCPU)

// nodeTopology is what the provider knows of one node for a session.
type nodeTopology struct {
	topo *cpuTopology
	// numaNodes are the node's NUMA node IDs, ascending.
	numaNodes []int
	// cpusPerNuma counts the node's CPUs on each NUMA node.
	cpusPerNuma map[int]int
	// reserved are the CPUs the kubelet keeps for the system: its
	// reserved CPU count, picked from all the node's CPUs as a container's
	// would be.
	reserved cpuset.CPUSet
}

func newNodeTopology(info *api.NumaInfo) *nodeTopology {
	n := &nodeTopology{topo: newCPUTopology(info.CPUs), cpusPerNuma: map[int]int{}, reserved: cpuset.New()}
	for _, c := range info.CPUs {
		n.cpusPerNuma[c.NUMANode]++
	}
	n.numaNodes = n.topo.details.numaNodes().List()
	if info.ReservedCPUs > 0 {
		// Volcano ignores the failure to find that many: nothing is
		// reserved then.
		n.reserved, _ = takeByTopology(n.topo, n.topo.details.cpus(), info.ReservedCPUs)
	}
	return n
}

// guaranteedCPUs is the whole number of CPUs a container requests; 0 when
// the request is not whole.
func guaranteedCPUs(c *v1.Container) int {
	q := c.Resources.Requests[v1.ResourceCPU]
	if q.Value()*1000 != q.MilliValue() {
		return 0
	}
	return int(q.Value())
}

// cpuHints are the provider's hints for a container given the node's free
// sets: nil (no preference) when the container asks for no whole CPUs or
// the node has no CPU set; otherwise a list, empty when no NUMA nodes can
// hold the request.
func cpuHints(c *v1.Container, n *nodeTopology, free api.NumaSets) providerHints {
	if _, ok := c.Resources.Requests[v1.ResourceCPU]; !ok {
		return nil
	}
	request := guaranteedCPUs(c)
	if request == 0 {
		return nil
	}
	available, ok := free[cpuResource]
	if !ok {
		return nil
	}
	return providerHints{cpuResource: numaHints(available.Difference(n.reserved), n, request)}
}

// numaHints lists every set of NUMA nodes, smallest sets first, on which
// enough CPUs are available for the request; those no larger than the
// smallest set that has enough CPUs at all (available or not) are
// preferred.
func numaHints(available cpuset.CPUSet, n *nodeTopology, request int) []topologyHint {
	availablePerNuma := map[int]int{}
	for _, cpu := range available.UnsortedList() {
		availablePerNuma[n.topo.details[cpu].NUMANode]++
	}
	narrowest := len(n.numaNodes)
	hints := []topologyHint{}
	eachNumaSet(n.numaNodes, func(mask numaMask) {
		cpus, free := 0, 0
		for _, id := range mask.ids() {
			cpus += n.cpusPerNuma[id]
			free += availablePerNuma[id]
		}
		if cpus >= request && mask.count() < narrowest {
			narrowest = mask.count()
		}
		if free >= request {
			hints = append(hints, topologyHint{affinity: mask})
		}
	})
	for i := range hints {
		hints[i].preferred = hints[i].affinity.count() == narrowest
	}
	return hints
}

// cpuAllocate picks the container's CPUs: as many as it requests from the
// hint's NUMA nodes, the rest anywhere on the node; none when they cannot
// all be found.
func cpuAllocate(c *v1.Container, best topologyHint, n *nodeTopology, free api.NumaSets) api.NumaSets {
	request := guaranteedCPUs(c)
	available := free[cpuResource].Difference(n.reserved)
	picked := cpuset.New()
	if best.affinity != 0 {
		aligned := available.Intersection(n.topo.details.cpusInNUMANodes(best.affinity.ids()...))
		got, err := takeByTopology(n.topo, aligned, min(request, aligned.Size()))
		if err != nil {
			return api.NumaSets{cpuResource: cpuset.New()}
		}
		picked = got
	}
	rest, err := takeByTopology(n.topo, available.Difference(picked), request-picked.Size())
	if err != nil {
		return api.NumaSets{cpuResource: cpuset.New()}
	}
	return api.NumaSets{cpuResource: picked.Union(rest)}
}
