package numaaware

import (
	"maps"
	"math/bits"
	"slices"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// Merging hints into one, as the kubelet's topology manager does and
// Volcano restates it (volcano-sh/volcano@8fc394c11e8d (v1.15.0)
// pkg/scheduler/plugins/numaaware/policy/policy.go and one file per
// policy).

// numaMask is a set of NUMA node IDs (0 to 63, api.MaxNumaNodeID), the
// topology manager's bitmask. The empty mask stands for a hint without
// affinity (a nil mask in Volcano): any NUMA node will do.
type numaMask uint64

func maskOf(ids ...int) numaMask {
	var m numaMask
	for _, id := range ids {
		m |= 1 << uint(id)
	}
	return m
}

func (m numaMask) count() int { return bits.OnesCount64(uint64(m)) }

func (m numaMask) ids() []int {
	var out []int
	for rest := uint64(m); rest != 0; rest &= rest - 1 {
		out = append(out, bits.TrailingZeros64(rest))
	}
	return out
}

// narrowerThan: fewer NUMA nodes, or as many with a lower mask.
func (m numaMask) narrowerThan(o numaMask) bool {
	if m.count() != o.count() {
		return m.count() < o.count()
	}
	return m < o
}

// eachNumaSet calls f with every non-empty set of the given NUMA nodes:
// sets of one node first, then of two, and so on, each size in
// lexicographic order of the nodes' positions.
func eachNumaSet(nodes []int, f func(numaMask)) {
	var pick func(from, size int, acc numaMask)
	pick = func(from, size int, acc numaMask) {
		if size == 0 {
			f(acc)
			return
		}
		for i := from; i <= len(nodes)-size; i++ {
			pick(i+1, size-1, acc|maskOf(nodes[i]))
		}
	}
	for size := 1; size <= len(nodes); size++ {
		pick(0, size, 0)
	}
}

// topologyHint is a NUMA affinity for a container's resource, and whether
// it is one the container prefers.
type topologyHint struct {
	affinity  numaMask
	preferred bool
}

// providerHints are one hint provider's hints by resource name. A nil list
// says the provider has no preference for the resource; an empty one that
// no NUMA nodes can hold it. A nil map says it has no preference at all.
type providerHints map[string][]topologyHint

// policy decides, from every provider's hints for a container, the hint
// the container's resources are aligned to and whether the container is
// admitted on the node.
type policy interface {
	admit(numaNodes []int, hints []providerHints) (topologyHint, bool)
}

// policyFor is the node's topology manager policy; one that is none of
// the four admits without aligning, as none does.
func policyFor(name string) policy {
	switch name {
	case api.TopologyPolicyBestEffort:
		return bestEffortPolicy{}
	case api.TopologyPolicyRestricted:
		return restrictedPolicy{}
	case api.TopologyPolicySingleNumaNode:
		return singleNumaNodePolicy{}
	}
	return nonePolicy{}
}

// nonePolicy admits every container without affinity.
type nonePolicy struct{}

func (nonePolicy) admit([]int, []providerHints) (topologyHint, bool) { return topologyHint{}, true }

// bestEffortPolicy admits every container, aligned to the best hint.
type bestEffortPolicy struct{}

func (bestEffortPolicy) admit(numaNodes []int, hints []providerHints) (topologyHint, bool) {
	return mergeHints(numaNodes, perResource(hints)), true
}

// restrictedPolicy admits a container only when the best hint is
// preferred.
type restrictedPolicy struct{}

func (restrictedPolicy) admit(numaNodes []int, hints []providerHints) (topologyHint, bool) {
	best := mergeHints(numaNodes, perResource(hints))
	return best, best.preferred
}

// singleNumaNodePolicy keeps only preferred hints on one NUMA node (or
// without affinity) and admits a container only when the best of those
// is preferred.
type singleNumaNodePolicy struct{}

func (singleNumaNodePolicy) admit(numaNodes []int, hints []providerHints) (topologyHint, bool) {
	lists := perResource(hints)
	for i, list := range lists {
		var kept []topologyHint
		for _, h := range list {
			if h.preferred && h.affinity.count() <= 1 {
				kept = append(kept, h)
			}
		}
		lists[i] = kept
	}
	best := mergeHints(numaNodes, lists)
	return best, best.preferred
}

// perResource turns the providers' hints into one list per resource: a
// provider or resource without preference gives a single preferred hint
// without affinity, one that no NUMA nodes can hold a single hint without
// affinity that is not preferred. Resources go in name order (Volcano
// takes a map's order; the merged hint is the same either way).
func perResource(hints []providerHints) [][]topologyHint {
	var out [][]topologyHint
	for _, p := range hints {
		if len(p) == 0 {
			out = append(out, []topologyHint{{preferred: true}})
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(p)) {
			switch list := p[name]; {
			case list == nil:
				out = append(out, []topologyHint{{preferred: true}})
			case len(list) == 0:
				out = append(out, []topologyHint{{preferred: false}})
			default:
				out = append(out, list)
			}
		}
	}
	return out
}

// mergeHints picks the best of every combination of one hint per
// resource, each combination merged into the NUMA nodes all its hints
// share (a hint without affinity counts as all of the node's), preferred
// when all its hints are. A combination sharing no NUMA node is skipped; a
// preferred one beats one that is not; between equals the narrower wins.
// Without any, the best is all of the node's NUMA nodes, not preferred.
func mergeHints(numaNodes []int, lists [][]topologyHint) topologyHint {
	all := maskOf(numaNodes...)
	best := topologyHint{affinity: all}
	picked := make([]topologyHint, len(lists))
	var walk func(i int)
	walk = func(i int) {
		if i < len(lists) {
			for _, h := range lists[i] {
				picked[i] = h
				walk(i + 1)
			}
			return
		}
		merged := topologyHint{affinity: all, preferred: true}
		for _, h := range picked {
			if h.affinity != 0 {
				merged.affinity &= h.affinity
			}
			merged.preferred = merged.preferred && h.preferred
		}
		switch {
		case merged.affinity == 0:
		case merged.preferred != best.preferred:
			if merged.preferred {
				best = merged
			}
		case merged.affinity.narrowerThan(best.affinity):
			best = merged
		}
	}
	walk(0)
	return best
}
