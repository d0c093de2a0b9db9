package api

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/cpuset"
	nodeinfov1alpha1 "volcano.sh/apis/pkg/apis/nodeinfo/v1alpha1"
)

// NumaPolicyAnnotation names, on a pod, the kubelet topology manager
// policy its node must run (Volcano's scheduling.volcano.sh NumaPolicyKey,
// which its job controller copies from a task's topologyPolicy).
const NumaPolicyAnnotation = "volcano.sh/numa-topology-policy"

// The kubelet's topology manager policies (--topology-manager-policy), as
// a pod's NumaPolicyAnnotation and a node's Numatopology name them.
const (
	TopologyPolicyNone           = "none"
	TopologyPolicyBestEffort     = "best-effort"
	TopologyPolicyRestricted     = "restricted"
	TopologyPolicySingleNumaNode = "single-numa-node"
)

// The kubelet's CPU manager policies (--cpu-manager-policy); only "static"
// gives containers CPUs of their own.
const (
	CPUManagerPolicyNone   = "none"
	CPUManagerPolicyStatic = "static"
)

// KnownTopologyPolicy reports whether p is one of the topology manager's
// policies.
func KnownTopologyPolicy(p string) bool {
	switch p {
	case TopologyPolicyNone, TopologyPolicyBestEffort, TopologyPolicyRestricted, TopologyPolicySingleNumaNode:
		return true
	}
	return false
}

// NumaPolicy is the topology manager policy a task asks for in its pod's
// NumaPolicyAnnotation; "" when it asks for none.
func (t *TaskInfo) NumaPolicy() string { return t.Pod.Annotations[NumaPolicyAnnotation] }

// CPUInfo places one logical CPU: its NUMA node, socket and physical core.
// Core IDs are those the node's agent reports, which need not be unique
// across sockets.
type CPUInfo struct {
	NUMANode, Socket, Core int
}

// NumaSets are CPU sets by resource name ("cpu" is the one the scheduler
// assigns); Volcano's ResNumaSets.
type NumaSets map[string]cpuset.CPUSet

// Clone copies the sets.
func (s NumaSets) Clone() NumaSets {
	out := make(NumaSets, len(s))
	for name, set := range s {
		out[name] = set.Clone()
	}
	return out
}

// Take removes other's CPUs from the sets of the resources s has.
func (s NumaSets) Take(other NumaSets) {
	for name, set := range other {
		if cur, ok := s[name]; ok {
			s[name] = cur.Difference(set)
		}
	}
}

// Give adds other's CPUs back to the sets of the resources s has.
func (s NumaSets) Give(other NumaSets) {
	for name, set := range other {
		if cur, ok := s[name]; ok {
			s[name] = cur.Union(set)
		}
	}
}

// NumaInfo is a node's NUMA topology as its agent (Volcano's resource
// exporter) reports it in a Numatopology object of the node's name
// (nodeinfo.volcano.sh/v1alpha1), in the scheduler's terms: the kubelet's
// CPU and topology manager policies, where each logical CPU sits, the
// CPUs free for exclusive use by resource, and how many CPUs the kubelet
// keeps for the system. A NumaInfo is not changed once built: the cache
// replaces it, so that snapshots may share it.
type NumaInfo struct {
	CPUManagerPolicy      string
	TopologyManagerPolicy string
	// CPUs places every logical CPU, by ID.
	CPUs map[int]CPUInfo
	// Allocatable holds, by resource name, the CPUs containers may still
	// be given exclusively.
	Allocatable NumaSets
	// ReservedCPUs is the kubelet's reserved CPU quantity (resReserved
	// cpu), rounded up to whole CPUs.
	ReservedCPUs int
}

// WithAllocatable returns a copy of the information with other
// allocatable sets; the rest is shared.
func (n *NumaInfo) WithAllocatable(sets NumaSets) *NumaInfo {
	c := *n
	c.Allocatable = sets
	return &c
}

// MaxNumaNodeID bounds a NUMA node ID: the kubelet's topology manager
// keeps NUMA nodes in a 64-bit mask.
const MaxNumaNodeID = 63

// NumaFault is a fault in a Numatopology object: the field, what is wrong
// with it, and what the scheduler makes of it.
type NumaFault struct {
	Field, Problem, Consequence string
}

// Error names the field and the problem.
func (f NumaFault) Error() string { return f.Field + ": " + f.Problem }

// NewNumaInfo reads a Numatopology object. It returns what can be used
// and every fault found: an allocatable set that is not a CPU list counts
// as empty, a cpuDetail entry whose key is not a CPU ID is left out, a
// reservation that cannot be read reserves nothing (Volcano's readings,
// where it logs or says nothing), and a policy no kubelet has, or
// allocatable CPUs that cpuDetail does not place, are kept as written
// (Volcano then counts such a CPU on NUMA node 0). A CPU placed on a NUMA
// node outside 0..63, or with a negative socket or core, leaves nothing
// usable: the result is nil.
func NewNumaInfo(obj *nodeinfov1alpha1.Numatopology) (*NumaInfo, []NumaFault) {
	var faults []NumaFault
	fault := func(field, consequence, format string, args ...any) {
		faults = append(faults, NumaFault{Field: field, Problem: fmt.Sprintf(format, args...), Consequence: consequence})
	}
	spec := &obj.Spec
	info := &NumaInfo{
		CPUManagerPolicy:      spec.Policies[nodeinfov1alpha1.CPUManagerPolicy],
		TopologyManagerPolicy: spec.Policies[nodeinfov1alpha1.TopologyManagerPolicy],
		CPUs:                  make(map[int]CPUInfo, len(spec.CPUDetail)),
		Allocatable:           make(NumaSets, len(spec.NumaResMap)),
	}
	for _, name := range slices.Sorted(maps.Keys(spec.Policies)) {
		field, value := "spec.policies."+string(name), spec.Policies[name]
		switch name {
		case nodeinfov1alpha1.CPUManagerPolicy:
			if value != CPUManagerPolicyNone && value != CPUManagerPolicyStatic {
				fault(field, "read as not static", "%q is not a CPU manager policy (none, static)", value)
			}
		case nodeinfov1alpha1.TopologyManagerPolicy:
			if !KnownTopologyPolicy(value) {
				fault(field, "no policy aligns the CPUs", "%q is not a topology manager policy (none, best-effort, restricted, single-numa-node)", value)
			}
		default:
			fault(field, "ignored", "unknown policy (CPUManagerPolicy, TopologyManagerPolicy)")
		}
	}
	unusable := false
	for _, key := range slices.Sorted(maps.Keys(spec.CPUDetail)) {
		d, field := spec.CPUDetail[key], "spec.cpuDetail."+key
		id, err := strconv.Atoi(key)
		if err != nil || id < 0 {
			fault(field, "the entry is left out", "the key is not a CPU ID")
			continue
		}
		if d.NUMANodeID < 0 || d.NUMANodeID > MaxNumaNodeID || d.SocketID < 0 || d.CoreID < 0 {
			fault(field, "the object is unusable", "numa %d, socket %d, core %d: a NUMA node is 0 to %d, a socket or core is not negative", d.NUMANodeID, d.SocketID, d.CoreID, MaxNumaNodeID)
			unusable = true
			continue
		}
		if _, dup := info.CPUs[id]; dup {
			fault(field, "the last entry counts", "CPU %d is given twice", id)
		}
		info.CPUs[id] = CPUInfo{NUMANode: d.NUMANodeID, Socket: d.SocketID, Core: d.CoreID}
	}
	for _, name := range slices.Sorted(maps.Keys(spec.NumaResMap)) {
		list, field := spec.NumaResMap[name].Allocatable, "spec.numares."+name+".allocatable"
		set, err := cpuset.Parse(list)
		if err != nil {
			fault(field, "it counts as empty", "%q is not a CPU list: %v", list, err)
			set = cpuset.New()
		}
		if name == string(v1.ResourceCPU) {
			if unknown := set.Difference(cpuIDs(info.CPUs)); unknown.Size() > 0 {
				fault(field, "they count as on NUMA node 0, socket 0, core 0", "CPUs %s are not in spec.cpuDetail", unknown)
			}
		}
		info.Allocatable[name] = set
	}
	reserved, err := reservedCPUs(spec.ResReserved)
	if err != nil {
		fault("spec.resReserved", "nothing is reserved", "%v", err)
	}
	info.ReservedCPUs = reserved
	if unusable {
		return nil, faults
	}
	return info, faults
}

func cpuIDs(cpus map[int]CPUInfo) cpuset.CPUSet {
	return cpuset.New(slices.Collect(maps.Keys(cpus))...)
}

// reservedCPUs reads resReserved as Volcano does (cpu, memory and
// ephemeral-storage, none negative; any fault voids the whole list) and
// returns its CPUs rounded up.
func reservedCPUs(m map[string]string) (int, error) {
	cpus := 0
	for _, name := range slices.Sorted(maps.Keys(m)) {
		switch v1.ResourceName(name) {
		case v1.ResourceCPU, v1.ResourceMemory, v1.ResourceEphemeralStorage:
		default:
			return 0, fmt.Errorf("%s: only cpu, memory and ephemeral-storage can be reserved", name)
		}
		q, err := resource.ParseQuantity(m[name])
		if err != nil {
			return 0, fmt.Errorf("%s: %v", name, err)
		}
		if q.Sign() < 0 {
			return 0, fmt.Errorf("%s: %s is negative", name, q.String())
		}
		if err := CheckQuantity(v1.ResourceName(name), q); err != nil {
			return 0, err
		}
		if name == string(v1.ResourceCPU) {
			milli := q.MilliValue()
			cpus = int((milli + 999) / 1000)
		}
	}
	return cpus, nil
}
