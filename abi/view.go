package abi

// The session view as it crosses the boundary (docs/abi.md, section 6).
// Field names are the msgpack keys the guest SDKs decode.

// Resource is an amount: milli-CPU, memory bytes, scalars in milli-units
// ("pods" as a count).
type Resource struct {
	MilliCPU int64            `msgpack:"cpu"`
	Memory   int64            `msgpack:"memory"`
	Scalars  map[string]int64 `msgpack:"scalars,omitempty"`
}

// Taint is a node taint.
type Taint struct {
	Key    string `msgpack:"key"`
	Value  string `msgpack:"value"`
	Effect string `msgpack:"effect"`
}

// Toleration is a pod toleration.
type Toleration struct {
	Key      string `msgpack:"key"`
	Operator string `msgpack:"operator"`
	Value    string `msgpack:"value"`
	Effect   string `msgpack:"effect"`
}

// NodeSelectorRequirement is one requirement of a node selector term: a
// label (matchExpressions) or a field (matchFields) compared with values.
type NodeSelectorRequirement struct {
	Key      string   `msgpack:"key"`
	Operator string   `msgpack:"operator"`
	Values   []string `msgpack:"values,omitempty"`
}

// NodeSelectorTerm is a node selector term: its requirements ANDed.
// Invalid says kube-scheduler's parser rejects the term (an unknown operator,
// a malformed label key or value, a non-integer Gt or Lt value, ...): it then
// matches no node.
type NodeSelectorTerm struct {
	MatchExpressions []NodeSelectorRequirement `msgpack:"matchExpressions,omitempty"`
	MatchFields      []NodeSelectorRequirement `msgpack:"matchFields,omitempty"`
	Invalid          bool                      `msgpack:"invalid,omitempty"`
}

// NodeSelector is required node affinity: its terms ORed. An empty list
// matches no node, unlike an absent selector.
type NodeSelector struct {
	Terms []NodeSelectorTerm `msgpack:"terms"`
}

// PreferredTerm is one preferred node affinity term and its weight.
type PreferredTerm struct {
	Weight int32            `msgpack:"weight"`
	Term   NodeSelectorTerm `msgpack:"term"`
}

// NodeAffinity is a pod's spec.affinity.nodeAffinity.
type NodeAffinity struct {
	Required  *NodeSelector   `msgpack:"required,omitempty"`
	Preferred []PreferredTerm `msgpack:"preferred,omitempty"`
}

// HostPort is a container's host port with kube-scheduler's defaults
// filled in: IP "0.0.0.0" and protocol "TCP" when unset.
type HostPort struct {
	IP       string `msgpack:"ip"`
	Port     int32  `msgpack:"port"`
	Protocol string `msgpack:"protocol"`
}

// KubeRequest is what kube-scheduler's scoring counts of a pod's requests
// (k8s.io/component-helpers PodRequests: init containers, overhead and
// resize status included): milli-CPU, memory bytes and nvidia.com/gpu
// devices as written, and milli-CPU and memory with kube-scheduler's
// defaults (100m, 200Mi) for containers that request none.
type KubeRequest struct {
	MilliCPU        int64 `msgpack:"cpu,omitempty"`
	Memory          int64 `msgpack:"memory,omitempty"`
	GPU             int64 `msgpack:"gpu,omitempty"`
	NonZeroMilliCPU int64 `msgpack:"nonZeroCpu,omitempty"`
	NonZeroMemory   int64 `msgpack:"nonZeroMemory,omitempty"`
}

// Node is one node; its handle is its index in View.Nodes.
type Node struct {
	Name          string            `msgpack:"name"`
	Labels        map[string]string `msgpack:"labels,omitempty"`
	Annotations   map[string]string `msgpack:"annotations,omitempty"`
	Taints        []Taint           `msgpack:"taints,omitempty"`
	Unschedulable bool              `msgpack:"unschedulable"`
	Allocatable   Resource          `msgpack:"allocatable"`
	Idle          Resource          `msgpack:"idle"`
	Used          Resource          `msgpack:"used"`
	Releasing     Resource          `msgpack:"releasing"`
	Pipelined     Resource          `msgpack:"pipelined"`
	Pods          int32             `msgpack:"pods"`
	// KubeRequested sums KubeRequest over every pod on the node when the
	// view is built (Pods of them), in the session or not.
	KubeRequested KubeRequest `msgpack:"kubeRequested,omitempty"`
	// HostPorts lists the host ports of those pods, one entry per container
	// port (repeats kept).
	HostPorts []HostPort `msgpack:"hostPorts,omitempty"`
	// Images are the node status's images (1.4).
	Images []Image `msgpack:"images,omitempty"`
	// Others are the pods on the node that are not among the view's tasks
	// when the view is built, as inter-pod affinity and topology spread
	// count them (1.4).
	Others []Pod `msgpack:"others,omitempty"`
	// GPUs are the node's GPU-sharing cards as deviceshare reads them when
	// the view is built, in ID order, unhealthy ones flagged (1.12).
	GPUs []GPU `msgpack:"gpus,omitempty"`
}

// GPU is one card of a node's GPU sharing: its number, its memory, the
// memory its pods ask for, and how many pods hold it (none: idle).
type GPU struct {
	ID      int32 `msgpack:"id"`
	Memory  int64 `msgpack:"memory"`
	Used    int64 `msgpack:"used"`
	Holders int32 `msgpack:"holders"`
	// Unhealthy: the node's volcano.sh/gpu-unhealthy-ids lists the card;
	// nothing is placed on it.
	Unhealthy bool `msgpack:"unhealthy,omitempty"`
}

// Image is one image a node reports: its names and size in bytes.
type Image struct {
	Names []string `msgpack:"names,omitempty"`
	Size  int64    `msgpack:"size"`
}

// Pod is a pod on a node that is not a task of the view: what inter-pod
// affinity and topology spread read of it.
type Pod struct {
	Namespace       string            `msgpack:"namespace"`
	Name            string            `msgpack:"name"`
	Labels          map[string]string `msgpack:"labels,omitempty"`
	Terminating     bool              `msgpack:"terminating,omitempty"`
	PodAffinity     *PodAffinity      `msgpack:"podAffinity,omitempty"`
	PodAntiAffinity *PodAffinity      `msgpack:"podAntiAffinity,omitempty"`
}

// Selector is a label selector as a list of requirements, ANDed. A nil
// *Selector matches nothing; one without requirements matches every set
// of labels (metav1.LabelSelectorAsSelector of nil and of {}).
type Selector struct {
	Requirements []NodeSelectorRequirement `msgpack:"requirements,omitempty"`
}

// PodAffinityTerm is a pod affinity term as kube-scheduler parses it: the
// label selector with matchLabelKeys and mismatchLabelKeys merged in, and
// the namespaces named, the owning pod's own when the term names neither
// namespaces nor a namespace selector.
type PodAffinityTerm struct {
	Selector          *Selector `msgpack:"selector,omitempty"`
	Namespaces        []string  `msgpack:"namespaces,omitempty"`
	NamespaceSelector *Selector `msgpack:"namespaceSelector,omitempty"`
	TopologyKey       string    `msgpack:"topologyKey"`
}

// WeightedPodAffinityTerm is a preferred pod affinity term and its weight.
type WeightedPodAffinityTerm struct {
	Weight int32           `msgpack:"weight"`
	Term   PodAffinityTerm `msgpack:"term"`
}

// PodAffinity is a pod's podAffinity or podAntiAffinity. A list whose
// terms do not parse is left out (the task's AffinityError says why).
type PodAffinity struct {
	Required  []PodAffinityTerm         `msgpack:"required,omitempty"`
	Preferred []WeightedPodAffinityTerm `msgpack:"preferred,omitempty"`
}

// SpreadConstraint is a topology spread constraint with kube-scheduler's
// defaults filled in (minDomains 1, nodeAffinityPolicy Honor,
// nodeTaintsPolicy Ignore) and matchLabelKeys merged into the selector.
type SpreadConstraint struct {
	MaxSkew            int32     `msgpack:"maxSkew"`
	TopologyKey        string    `msgpack:"topologyKey"`
	WhenUnsatisfiable  string    `msgpack:"whenUnsatisfiable"`
	Selector           *Selector `msgpack:"selector,omitempty"`
	MinDomains         int32     `msgpack:"minDomains"`
	NodeAffinityPolicy string    `msgpack:"nodeAffinityPolicy"`
	NodeTaintsPolicy   string    `msgpack:"nodeTaintsPolicy"`
	// Error is kube-scheduler's error reading the constraint; the other
	// fields but WhenUnsatisfiable are then empty.
	Error string `msgpack:"error,omitempty"`
}

// Queue is one queue.
type Queue struct {
	Name        string            `msgpack:"name"`
	Weight      int32             `msgpack:"weight"`
	Capability  Resource          `msgpack:"capability"`
	Guarantee   Resource          `msgpack:"guarantee"`
	State       string            `msgpack:"state"`
	Annotations map[string]string `msgpack:"annotations,omitempty"`
	// Priority is the queue's spec.priority (1.1).
	Priority int32 `msgpack:"priority,omitempty"`
	// Parent is the queue's spec.parent, "" for none (the root queue is
	// then its parent where queues form a tree) (1.7).
	Parent string `msgpack:"parent,omitempty"`
	// Deserved is the queue's spec.deserved (1.7).
	Deserved *Resource `msgpack:"deserved,omitempty"`
	// Reclaimable is the queue's spec.reclaimable when set; unset means
	// reclaimable (1.7).
	Reclaimable *bool `msgpack:"reclaimable,omitempty"`
}

// Job is one PodGroup with its tasks.
type Job struct {
	Namespace    string            `msgpack:"namespace"`
	Name         string            `msgpack:"name"`
	Queue        int32             `msgpack:"queue"`
	Priority     int32             `msgpack:"priority"`
	MinAvailable int32             `msgpack:"minAvailable"`
	MinResources Resource          `msgpack:"minResources"`
	Phase        string            `msgpack:"phase"`
	Labels       map[string]string `msgpack:"labels,omitempty"`
	Annotations  map[string]string `msgpack:"annotations,omitempty"`
	CreationTime int64             `msgpack:"creationTime"`
	// MinTaskMember is the PodGroup's spec.minTaskMember.
	MinTaskMember RoleCounts `msgpack:"minTaskMember,omitempty"`
	// NetworkTopology (1.9) is the PodGroup's spec.networkTopology as the
	// session resolved it; nil when it has none.
	NetworkTopology *NetworkTopology `msgpack:"networkTopology,omitempty"`
	// AllocatedHyperNode (1.9) is the hypernode handle of the lowest
	// hypernode holding what the job placed, as the session opened; nil
	// for none.
	AllocatedHyperNode *int32 `msgpack:"allocatedHyperNode,omitempty"`
}

// NetworkTopology is a job's network topology (1.9) as the session
// resolved it: a highestTierName becomes its tier, and soft mode becomes
// hard up to the cluster top's tier, as Volcano v1.15 does at session
// open. HighestTier is nil when the job names a tier that no hypernode
// has.
type NetworkTopology struct {
	Mode        string `msgpack:"mode"`
	HighestTier *int32 `msgpack:"highestTier,omitempty"`
}

// HyperNode is one hypernode of the session (1.9): its name, tier, parent
// (a hypernode handle, -1 for the cluster top) and the nodes directly
// under it, by node handle in handle order: the nodes it holds that none
// of its child hypernodes holds. Its nodes at every depth are these and
// those of its descendants.
type HyperNode struct {
	Name   string  `msgpack:"name"`
	Tier   int32   `msgpack:"tier"`
	Parent int32   `msgpack:"parent"`
	Nodes  []int32 `msgpack:"nodes,omitempty"`
}

// Task is one pod.
type Task struct {
	Namespace    string            `msgpack:"namespace"`
	Name         string            `msgpack:"name"`
	Job          int32             `msgpack:"job"`
	Status       string            `msgpack:"status"`
	Node         int32             `msgpack:"node"`
	Priority     int32             `msgpack:"priority"`
	Request      Resource          `msgpack:"request"`
	InitRequest  Resource          `msgpack:"initRequest"`
	Labels       map[string]string `msgpack:"labels,omitempty"`
	Annotations  map[string]string `msgpack:"annotations,omitempty"`
	NodeSelector map[string]string `msgpack:"nodeSelector,omitempty"`
	Tolerations  []Toleration      `msgpack:"tolerations,omitempty"`
	Preemptable  bool              `msgpack:"preemptable"`
	Role         string            `msgpack:"role"`
	CreationTime int64             `msgpack:"creationTime"`
	// PriorityClassName is the pod's spec.priorityClassName.
	PriorityClassName string `msgpack:"priorityClassName,omitempty"`
	// BestEffort: the task requests no resources (Volcano's BestEffort).
	BestEffort bool `msgpack:"bestEffort,omitempty"`
	// NodeAffinity is the pod's required and preferred node affinity.
	NodeAffinity *NodeAffinity `msgpack:"nodeAffinity,omitempty"`
	// HostPorts are the host ports of the pod's containers (init containers
	// are not looked at, as in kube-scheduler).
	HostPorts []HostPort `msgpack:"hostPorts,omitempty"`
	// KubeRequest is the pod's requests as kube-scheduler's scoring counts them.
	KubeRequest KubeRequest `msgpack:"kubeRequest,omitempty"`
	// Terminating: the pod has a deletion timestamp (1.4).
	Terminating bool `msgpack:"terminating,omitempty"`
	// PodAffinity and PodAntiAffinity are the pod's inter-pod affinity
	// terms (1.4).
	PodAffinity     *PodAffinity `msgpack:"podAffinity,omitempty"`
	PodAntiAffinity *PodAffinity `msgpack:"podAntiAffinity,omitempty"`
	// AffinityError is kube-scheduler's error parsing those terms (1.4).
	AffinityError string `msgpack:"affinityError,omitempty"`
	// SpreadConstraints are the pod's topology spread constraints, in
	// spec order (1.4).
	SpreadConstraints []SpreadConstraint `msgpack:"spreadConstraints,omitempty"`
	// SpreadDefaulted: the pod states no spread constraints, and
	// SpreadConstraints are kube-scheduler's system defaults over the pods
	// its Services and controller select; nodes lacking a topology key are
	// then not left out of the score (1.4).
	SpreadDefaulted bool `msgpack:"spreadDefaulted,omitempty"`
	// Images are the pod's init and app containers' images, in that order,
	// named as ImageLocality matches them (1.4).
	Images []string `msgpack:"images,omitempty"`
	// GPUMemory and GPUNumber are the pod's volcano.sh/gpu-memory and
	// volcano.sh/gpu-number as deviceshare reads them (1.12).
	GPUMemory int64 `msgpack:"gpuMemory,omitempty"`
	GPUNumber int64 `msgpack:"gpuNumber,omitempty"`
}

// View is the whole session view sent with session_open.
type View struct {
	Nodes  []Node  `msgpack:"nodes,omitempty"`
	Queues []Queue `msgpack:"queues,omitempty"`
	Jobs   []Job   `msgpack:"jobs,omitempty"`
	Tasks  []Task  `msgpack:"tasks,omitempty"`
	// Plugins names the policy of each of the session's plugins, in
	// configuration order: a native plugin's name, or the name a Wasm module
	// declares (Descriptor.Name), whatever its file is called. It is sent
	// whole with every session_open, whole view or delta.
	Plugins []string `msgpack:"plugins,omitempty"`
	// Namespaces are the labels of the cluster's namespaces, by name (1.4);
	// sent whole with every session_open, like Plugins.
	Namespaces map[string]map[string]string `msgpack:"namespaces,omitempty"`
	// DisruptionBudgets and ResourceQuotas (1.8) are the cluster's
	// PodDisruptionBudgets and ResourceQuotas, by namespace and name; sent
	// whole with every session_open, like Plugins.
	DisruptionBudgets []DisruptionBudget `msgpack:"disruptionBudgets,omitempty"`
	ResourceQuotas    []ResourceQuota    `msgpack:"resourceQuotas,omitempty"`
	// HyperNodes (1.9) are the session's hypernodes, the cluster top
	// included, in name order; a hypernode handle is an index in it. Sent
	// whole with every session_open, like Plugins.
	HyperNodes []HyperNode `msgpack:"hyperNodes,omitempty"`
	// TaskClaims (1.10) are the claims of the tasks that use any, in task
	// handle order; VolumeLimits (1.10) the CSI attach limits of the nodes
	// whose CSINode states any, in node handle order. Both sent whole with
	// every session_open, like Plugins.
	TaskClaims   []TaskClaims       `msgpack:"taskClaims,omitempty"`
	VolumeLimits []NodeVolumeLimits `msgpack:"volumeLimits,omitempty"`
}

// TaskClaims are one task's PersistentVolumeClaims, in volume order, and
// ResourceClaims, in spec order (1.10).
type TaskClaims struct {
	Task    int32         `msgpack:"task"`
	Volumes []VolumeClaim `msgpack:"volumes,omitempty"`
	Devices []DeviceClaim `msgpack:"devices,omitempty"`
}

// VolumeClaim is a PersistentVolumeClaim of the task's namespace: the
// volume it is bound to as kube-scheduler judges it, and its class.
type VolumeClaim struct {
	Name         string `msgpack:"name"`
	Volume       string `msgpack:"volume,omitempty"`
	StorageClass string `msgpack:"storageClass,omitempty"`
}

// DeviceClaim is a ResourceClaim of the task's namespace with the devices
// of its allocation, "driver/pool/device".
type DeviceClaim struct {
	Name    string   `msgpack:"name"`
	Devices []string `msgpack:"devices,omitempty"`
}

// NodeVolumeLimits are a node's CSI attach limits by driver.
type NodeVolumeLimits struct {
	Node   int32            `msgpack:"node"`
	Limits map[string]int32 `msgpack:"limits"`
}

// NodeClaims is predicate_batch's outcome of the host's volume and device
// checks on one node (1.10); nil: every check passes.
type NodeClaims struct {
	_msgpack struct{} `msgpack:",as_array"`
	RuledOut bool
	Checks   []ClaimCheck
}

// ClaimCheck is one failed check: its stage (0 claims, 1 limits, 2 zone,
// 3 binding, 4 devices), status code and reasons.
type ClaimCheck struct {
	_msgpack struct{} `msgpack:",as_array"`
	Stage    int32
	Code     Code
	Reasons  []string
}

// DisruptionBudget is a PodDisruptionBudget (policy/v1) as the pdb plugin
// reads it (1.8): its label selector (nil when the budget has none; no
// requirements when it is empty; matchLabels become In requirements), how
// many disruptions its status allows, and the pods its status lists as
// disrupted already.
type DisruptionBudget struct {
	Namespace          string    `msgpack:"namespace"`
	Name               string    `msgpack:"name"`
	Selector           *Selector `msgpack:"selector,omitempty"`
	DisruptionsAllowed int32     `msgpack:"disruptionsAllowed"`
	DisruptedPods      []string  `msgpack:"disruptedPods,omitempty"`
}

// ResourceQuota is a ResourceQuota's status as the resourcequota plugin
// reads it (1.8): status.hard and status.used by resource name
// ("requests.cpu", "pods", "count/pods", ...), each in thousandths of its
// unit (a Quantity's MilliValue), as the view's resources are.
type ResourceQuota struct {
	Namespace string           `msgpack:"namespace"`
	Name      string           `msgpack:"name"`
	Hard      map[string]int64 `msgpack:"hard,omitempty"`
	Used      map[string]int64 `msgpack:"used,omitempty"`
}

// OpenArgs is the request of session_open.
type OpenArgs struct {
	View      View           `msgpack:"view"`
	Arguments map[string]any `msgpack:"arguments,omitempty"`
}

// BatchArgs is the request of predicate_batch and node_order_batch.
type BatchArgs struct {
	Task  int32   `msgpack:"task"`
	Nodes []int32 `msgpack:"nodes,omitempty"`
	// Trial (1.4) marks a predicate_batch made during a preemption dry run
	// in which this module takes part: the evictions since the dry run
	// began only test whether the victims make room, and Volcano applies
	// them to a plugin's PreFilter state only in that case (its tier entry
	// enables preemptable or allocatable).
	Trial bool `msgpack:"trial,omitempty"`
	// JobHyperNode (1.9), in node_order_batch, is the hypernode handle of
	// the lowest hypernode holding what the task's job has placed so far,
	// while allocate places a job with a network topology that has placed
	// some (the native TaskInfo.JobAllocatedHyperNode); nil otherwise.
	JobHyperNode *int32 `msgpack:"jobHyperNode,omitempty"`
	// Claims (1.10), in predicate_batch to a module that declares
	// claimChecks, are the host's volume and device checks on each node of
	// Nodes, in order; nil when the task has none to check or every check
	// passes on every node.
	Claims []*NodeClaims `msgpack:"claims,omitempty"`
}

// Verdict is one node's answer in a predicate_batch reply: [code, reason].
type Verdict struct {
	_msgpack struct{} `msgpack:",as_array"`
	Code     Code
	Reason   string
}
