package api

import (
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	topologyv1alpha1 "volcano.sh/apis/pkg/apis/topology/v1alpha1"
)

// ClusterInfo is the snapshot a session opens on. Jobs and nodes are the
// session's own copies; everything they point to (pods, node objects, PodGroups,
// queues) is shared with the cache and must not be mutated.
type ClusterInfo struct {
	Jobs   map[JobID]*JobInfo
	Nodes  map[string]*NodeInfo
	Queues map[QueueID]*QueueInfo
	// NodeList holds the node names in a stable order: actions walk nodes in
	// this order so that decisions are reproducible.
	NodeList []string
	// NamespaceWeights holds per-namespace weights where any were set.
	NamespaceWeights map[string]int32
	// NamespaceLabels holds the labels of every Namespace object, which
	// inter-pod affinity's namespace selectors read. Shared, not copied.
	NamespaceLabels map[string]map[string]string
	// Workloads are the Services and controllers whose selectors give pods
	// without spread constraints kube-scheduler's default ones. Shared.
	Workloads *Workloads
	// DisruptionBudgets are the cluster's PodDisruptionBudgets, within
	// which the pdb plugin keeps victims. Shared.
	DisruptionBudgets []*policyv1.PodDisruptionBudget
	// QuotaStatus holds, per namespace, the status of each ResourceQuota
	// by name, within which the resourcequota plugin admits jobs. Shared.
	QuotaStatus map[string]map[string]v1.ResourceQuotaStatus
	// HyperNodes are Volcano's HyperNode objects, from which the session
	// builds its network topology. Shared.
	HyperNodes []*topologyv1alpha1.HyperNode
	// Storage holds the storage objects the volume filters read; nil when
	// the cache watches none. Shared.
	Storage *Storage
	// Devices holds the objects the dynamic resource allocation filter
	// reads; nil when the cache watches none. Shared.
	Devices *Devices
}

// NewClusterInfo returns an empty snapshot.
func NewClusterInfo() *ClusterInfo {
	return &ClusterInfo{
		Jobs:   map[JobID]*JobInfo{},
		Nodes:  map[string]*NodeInfo{},
		Queues: map[QueueID]*QueueInfo{},
	}
}

// Clone copies the snapshot the way the cache makes one: jobs cloned, nodes
// cloned sharing the jobs' task copies (a task in a job and on a node stays
// one object), queues copied; what they point to is shared. Tests and
// benchmarks that run many sessions on one cluster hand each a Clone.
func (c *ClusterInfo) Clone() *ClusterInfo {
	out := NewClusterInfo()
	tasks := map[TaskID]*TaskInfo{}
	for id, j := range c.Jobs {
		cj := j.Clone()
		for tid, t := range cj.Tasks {
			tasks[tid] = t
		}
		out.Jobs[id] = cj
	}
	resolve := func(t *TaskInfo) *TaskInfo {
		if s, ok := tasks[t.UID]; ok {
			return s
		}
		return t.Clone()
	}
	for _, name := range c.NodeList {
		out.Nodes[name] = c.Nodes[name].Clone(resolve)
	}
	out.NodeList = c.NodeList
	for id, q := range c.Queues {
		cp := *q
		out.Queues[id] = &cp
	}
	out.NamespaceWeights = c.NamespaceWeights
	out.NamespaceLabels = c.NamespaceLabels
	out.Workloads = c.Workloads
	out.DisruptionBudgets = c.DisruptionBudgets
	out.QuotaStatus = c.QuotaStatus
	out.HyperNodes = c.HyperNodes
	out.Storage = c.Storage
	out.Devices = c.Devices
	return out
}
