package numaaware

import (
	"errors"
	"sort"

	"k8s.io/utils/cpuset"
)

// Picking CPUs for a container, as Volcano v1.15's copy of an early
// kubelet CPU manager does (volcano-sh/volcano@8fc394c11e8d (v1.15.0)
// pkg/scheduler/plugins/numaaware/provider/cpumanager/cpu_assignment.go
// takeByTopology): whole sockets while the request is at least a socket's
// worth, then whole cores while it is at least a core's worth, then single
// CPUs. Volcano's copy differs from the kubelet's in ways that change
// which CPUs are picked, and Caldera keeps them:
//
//   - A socket counts as free when some available CPU has the socket's
//     number as its CPU ID, and taking it takes its available CPUs, not a
//     whole socket; a core likewise, and its CPUs are those of every
//     socket with that core number.
//   - Single CPUs go core by core in the order Go's sort.Slice makes of
//     Volcano's comparison, which is not a strict order (any one of CPUs
//     already taken on the core's socket, fewer free CPUs on the socket,
//     fewer free CPUs on the core, a lower socket, a lower core puts a
//     core first), starting from the cores in ascending order: the same
//     input and the same comparisons give Volcano's order.
//
// Where Volcano is not deterministic, Caldera is: Volcano orders the
// sockets whose cores it takes starting from a map's order, with a
// comparison that is not a strict order either; Caldera orders them as
// Volcano's comment says, by how many free cores they hold, then by
// number.

var errNotEnoughCPUs = errors.New("not enough cpus available to satisfy request")

// cpuAccumulator gathers CPUs for one request.
type cpuAccumulator struct {
	topo *cpuTopology
	// free places the CPUs still available; taken holds those picked.
	free  cpuDetails
	taken cpuset.CPUSet
	need  int
}

func (a *cpuAccumulator) take(cpus cpuset.CPUSet) {
	a.taken = a.taken.Union(cpus)
	a.free = a.free.keepOnly(a.free.cpus().Difference(a.taken))
	a.need -= cpus.Size()
}

func (a *cpuAccumulator) needs(n int) bool { return a.need >= n }
func (a *cpuAccumulator) satisfied() bool  { return a.need < 1 }
func (a *cpuAccumulator) failed() bool     { return a.need > len(a.free) }

// freeSockets are the socket numbers that are also the IDs of available
// CPUs, ascending (Volcano's reading of a free socket).
func (a *cpuAccumulator) freeSockets() []int {
	return a.free.sockets().Intersection(a.free.cpus()).List()
}

// freeCores lists, socket by socket (fewest such cores first, then by
// socket number), the core numbers on the socket that are also the IDs of
// available CPUs, ascending.
func (a *cpuAccumulator) freeCores() []int {
	available := a.free.cpus()
	sockets := a.free.sockets().List()
	cores := make(map[int][]int, len(sockets))
	for _, s := range sockets {
		cores[s] = a.free.coresInSockets(s).Intersection(available).List()
	}
	sort.SliceStable(sockets, func(i, j int) bool {
		ci, cj := len(cores[sockets[i]]), len(cores[sockets[j]])
		if ci != cj {
			return ci < cj
		}
		return sockets[i] < sockets[j]
	})
	var out []int
	for _, s := range sockets {
		out = append(out, cores[s]...)
	}
	return out
}

// coreRank is what Volcano's comparison of two cores looks at.
type coreRank struct {
	core, socket int
	// takenOnSocket counts CPUs already picked on the core's socket;
	// freeOnSocket and freeOnCore count the available ones.
	takenOnSocket, freeOnSocket, freeOnCore int
}

// rankedBefore is Volcano's comparison, kept as it is (see above).
func rankedBefore(x, y coreRank) bool {
	switch {
	case x.takenOnSocket > y.takenOnSocket:
		return true
	case x.freeOnSocket < y.freeOnSocket:
		return true
	case x.freeOnCore < y.freeOnCore:
		return true
	case x.socket < y.socket:
		return true
	}
	return x.core < y.core
}

// freeCPUs lists the available CPUs core by core, cores in the order of
// Volcano's comparison.
func (a *cpuAccumulator) freeCPUs() []int {
	cores := a.free.cores().List()
	ranks := make(map[int]coreRank, len(cores))
	all := a.topo.details
	for _, core := range cores {
		socket := all[all.cpusInCores(core).List()[0]].Socket
		ranks[core] = coreRank{
			core:          core,
			socket:        socket,
			takenOnSocket: all.cpusInSockets(socket).Intersection(a.taken).Size(),
			freeOnSocket:  a.free.cpusInSockets(socket).Size(),
			freeOnCore:    a.free.cpusInCores(core).Size(),
		}
	}
	sort.Slice(cores, func(i, j int) bool { return rankedBefore(ranks[cores[i]], ranks[cores[j]]) })
	var out []int
	for _, core := range cores {
		out = append(out, a.free.cpusInCores(core).List()...)
	}
	return out
}

// takeByTopology picks n of the available CPUs; none and an error when
// they cannot be found.
func takeByTopology(topo *cpuTopology, available cpuset.CPUSet, n int) (cpuset.CPUSet, error) {
	a := &cpuAccumulator{topo: topo, free: topo.details.keepOnly(available), taken: cpuset.New(), need: n}
	if a.satisfied() {
		return a.taken, nil
	}
	if a.failed() {
		return cpuset.New(), errNotEnoughCPUs
	}
	if perSocket := topo.cpusPerSocket(); a.needs(perSocket) {
		for _, s := range a.freeSockets() {
			a.take(a.free.cpusInSockets(s))
			if a.satisfied() {
				return a.taken, nil
			}
			if !a.needs(perSocket) {
				break
			}
		}
	}
	if perCore := topo.cpusPerCore(); a.needs(perCore) {
		for _, c := range a.freeCores() {
			a.take(a.free.cpusInCores(c))
			if a.satisfied() {
				return a.taken, nil
			}
			if !a.needs(perCore) {
				break
			}
		}
	}
	for _, c := range a.freeCPUs() {
		if a.needs(1) {
			a.take(cpuset.New(c))
		}
		if a.satisfied() {
			return a.taken, nil
		}
	}
	return cpuset.New(), errors.New("failed to allocate cpus")
}
