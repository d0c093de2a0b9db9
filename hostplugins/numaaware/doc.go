// Package numaaware is the native "numa-aware" plugin: Guaranteed pods go
// only where the node's kubelet can align their CPUs to NUMA nodes as its
// topology manager policy requires, and pods that ask for a policy prefer
// nodes where their CPUs span fewer NUMA nodes.
//
// It follows Volcano v1.15's plugin of the same name
// (volcano-sh/volcano@8fc394c11e8d (v1.15.0)
// pkg/scheduler/plugins/numaaware, with its policy and cpumanager
// provider packages), which restates the kubelet's topology manager and
// static CPU manager. A node's NUMA information is its Volcano
// Numatopology object (api.NumaInfo: the kubelet's CPU and topology
// manager policies, each CPU's NUMA node, socket and core, the CPUs free
// for exclusive use, the CPUs reserved for the system); a pod's policy is
// its annotation volcano.sh/numa-topology-policy (none, best-effort,
// restricted, single-numa-node).
//
//   - Predicate, for Guaranteed pods only (QoS class from status, else
//     computed, pod-level resources included): a pod that asks for a
//     policy other than none fails (Error, as Volcano's fit error) on a
//     node without NUMA information ("numa info is empty"), whose CPU
//     manager is not static ("cpu manager policy isn't static"), whose
//     topology policy is another ("task topology policy[P] is different
//     with node[Q]") or without free CPUs ("cpu allocatable map is
//     empty"). A pod that asks for none, or for nothing, passes without a
//     check on nodes that are not static or whose policy is none. Then,
//     container by container, the CPU manager provider hints the NUMA
//     node sets with enough free CPUs (not counting the reserved ones) for
//     the container's whole CPUs (none for a fractional request: no
//     preference), preferring the narrowest sets that could hold the
//     request at all; the node's policy merges the hints (none admits
//     without affinity; best-effort admits the best; restricted admits
//     only a preferred best; single-numa-node keeps only preferred hints
//     on one NUMA node first), and a container not admitted fails the pod
//     (UnschedulableAndUnresolvable, "container C cannot be assigned by
//     numa"). The admitted container's CPUs are picked (cpuassign.go) and
//     count as taken for its next containers; the pod's picks are kept per
//     node.
//   - BatchNodeOrder, for pods that ask for a policy other than none: each
//     node scores 100 - 100 x (NUMA nodes the pod's picked CPUs span there)
//     / (the most among the nodes scored), in whole numbers, all 100 when
//     none spans any, times weight.
//   - Allocate events take the pod's picked CPUs on its node off that
//     node's free sets for the rest of the session; deallocate events give
//     them back. At session close the CPUs of the pods placed are handed
//     to the cache (framework.NumaSetsWriter), which keeps them out of the
//     node's free sets until the node's agent reports again
//     (scheduler/cache/numa.go).
//
// Differences, each deterministic where Volcano is not, or more careful
// than it: Volcano counts the NUMA nodes of the scored nodes in parallel
// and merges hints in a map's order, which here go in node order and by
// resource name (the outcome is the same either way); it orders the
// sockets whose cores it takes from a map's order with a comparison that
// is not a strict order, which here is the order its comment states
// (cpuassign.go). A deallocate event gives back the CPUs its allocate
// event took, where Volcano gives back the last ones the predicate picked
// for the pod on that node. Volcano ignores a policy annotation that is
// not a policy (the pod fits only nodes that report the same word) and
// one on a pod that is not Guaranteed; Caldera places them the same way
// and logs each once. A malformed Numatopology is logged by the cache
// (scheduler/cache/numa.go) and refused by `caldera simulate`.
//
// The volcano.sh/topology-decision annotation (resources per NUMA node,
// which Volcano's scheduler reads and copies back at bind but never
// decides) is not read.
//
// Argument: weight (1), taken as given. Unknown keys are refused.
package numaaware
