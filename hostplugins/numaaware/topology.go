package numaaware

import (
	"k8s.io/utils/cpuset"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// cpuDetails places logical CPUs by ID; the queries are those of the
// kubelet's cpumanager/topology.CPUDetails that Volcano's provider asks.
// A CPU it does not place reads as NUMA node 0, socket 0, core 0, as a
// missing key of Volcano's map does.
type cpuDetails map[int]api.CPUInfo

// collect gathers one field of the CPUs that keep accepts into a set.
func (d cpuDetails) collect(field func(id int, c api.CPUInfo) int, keep func(api.CPUInfo) bool) cpuset.CPUSet {
	var ids []int
	for id, c := range d {
		if keep == nil || keep(c) {
			ids = append(ids, field(id, c))
		}
	}
	return cpuset.New(ids...)
}

func cpuID(id int, _ api.CPUInfo) int   { return id }
func numaID(_ int, c api.CPUInfo) int   { return c.NUMANode }
func socketID(_ int, c api.CPUInfo) int { return c.Socket }
func coreID(_ int, c api.CPUInfo) int   { return c.Core }

// in reports whether a CPU's field is one of ids.
func in(field func(int, api.CPUInfo) int, ids []int) func(api.CPUInfo) bool {
	return func(c api.CPUInfo) bool {
		v := field(0, c)
		for _, id := range ids {
			if v == id {
				return true
			}
		}
		return false
	}
}

func (d cpuDetails) cpus() cpuset.CPUSet      { return d.collect(cpuID, nil) }
func (d cpuDetails) numaNodes() cpuset.CPUSet { return d.collect(numaID, nil) }
func (d cpuDetails) sockets() cpuset.CPUSet   { return d.collect(socketID, nil) }
func (d cpuDetails) cores() cpuset.CPUSet     { return d.collect(coreID, nil) }

func (d cpuDetails) cpusInNUMANodes(ids ...int) cpuset.CPUSet {
	return d.collect(cpuID, in(numaID, ids))
}

func (d cpuDetails) cpusInSockets(ids ...int) cpuset.CPUSet {
	return d.collect(cpuID, in(socketID, ids))
}

// cpusInCores matches core IDs alone: where the agent numbers cores per
// socket, one ID names a core on each socket, as in Volcano.
func (d cpuDetails) cpusInCores(ids ...int) cpuset.CPUSet {
	return d.collect(cpuID, in(coreID, ids))
}

func (d cpuDetails) coresInSockets(ids ...int) cpuset.CPUSet {
	return d.collect(coreID, in(socketID, ids))
}

// keepOnly returns the details of the CPUs in cpus.
func (d cpuDetails) keepOnly(cpus cpuset.CPUSet) cpuDetails {
	out := make(cpuDetails, cpus.Size())
	for id, c := range d {
		if cpus.Contains(id) {
			out[id] = c
		}
	}
	return out
}

// cpuTopology is the kubelet's cpumanager/topology.CPUTopology as Volcano
// builds it from a node's Numatopology: the CPU count, the physical cores
// (distinct socket and core pairs, since the agent numbers cores per
// socket) and the sockets.
type cpuTopology struct {
	details                       cpuDetails
	numCPUs, numCores, numSockets int
}

func newCPUTopology(cpus map[int]api.CPUInfo) *cpuTopology {
	d := cpuDetails(cpus)
	type physicalCore struct{ socket, core int }
	cores := map[physicalCore]bool{}
	for _, c := range d {
		cores[physicalCore{c.Socket, c.Core}] = true
	}
	return &cpuTopology{details: d, numCPUs: len(d), numCores: len(cores), numSockets: d.sockets().Size()}
}

func (t *cpuTopology) cpusPerCore() int {
	if t.numCores == 0 {
		return 0
	}
	return t.numCPUs / t.numCores
}

func (t *cpuTopology) cpusPerSocket() int {
	if t.numSockets == 0 {
		return 0
	}
	return t.numCPUs / t.numSockets
}
