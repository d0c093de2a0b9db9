package caldera

//go:generate go tool msgp -file view.go -o view_gen.go -tests=false -io=false
//go:generate sed -i -e s/msgp.ReadStringBytes(/readString(/ -e s/msgp.UnsafeString(/unsafeString(/ -e s/msgp\./wire./g -e s,github.com/tinylib/msgp/msgp,github.com/caldera-scheduler/caldera/guest-sdk/go/internal/wire, view_gen.go

// Resource is an amount of every dimension: milli-CPU, memory bytes, and
// scalar resources (milli-units; "pods" as a count).
type Resource struct {
	MilliCPU int64   `msg:"cpu"`
	Memory   int64   `msg:"memory"`
	Scalars  Scalars `msg:"scalars"`
}

// Scalar returns one scalar dimension, 0 when absent.
func (r *Resource) Scalar(name string) int64 { return r.Scalars.Get(name) }

// Taint is a node taint.
type Taint struct {
	Key    string `msg:"key"`
	Value  string `msg:"value"`
	Effect string `msg:"effect"`
}

// Toleration is a pod toleration.
type Toleration struct {
	Key      string `msg:"key"`
	Operator string `msg:"operator"`
	Value    string `msg:"value"`
	Effect   string `msg:"effect"`
}

// NodeSelectorRequirement is one requirement of a node selector term: a
// node label (in MatchExpressions) or field (in MatchFields; only
// "metadata.name" has a value) compared with Values by Operator (In,
// NotIn, Exists, DoesNotExist, Gt, Lt).
type NodeSelectorRequirement struct {
	Key      string   `msg:"key"`
	Operator string   `msg:"operator"`
	Values   []string `msg:"values"`
}

// NodeSelectorTerm is a node selector term: its requirements ANDed. A term
// with no requirements matches no node; so does an Invalid one, which
// kube-scheduler's parser rejects.
type NodeSelectorTerm struct {
	MatchExpressions []NodeSelectorRequirement `msg:"matchExpressions"`
	MatchFields      []NodeSelectorRequirement `msg:"matchFields"`
	Invalid          bool                      `msg:"invalid"`
}

// NodeSelector is required node affinity: its terms ORed; no terms match
// no node.
type NodeSelector struct {
	Terms []NodeSelectorTerm `msg:"terms"`
}

// PreferredTerm is a preferred node affinity term and its weight.
type PreferredTerm struct {
	Weight int32            `msg:"weight"`
	Term   NodeSelectorTerm `msg:"term"`
}

// NodeAffinity is a pod's node affinity. Required is nil when the pod has
// none.
type NodeAffinity struct {
	Required  *NodeSelector   `msg:"required"`
	Preferred []PreferredTerm `msg:"preferred"`
}

// HostPort is a container's host port; IP defaults to "0.0.0.0" and
// Protocol to "TCP".
type HostPort struct {
	IP       string `msg:"ip"`
	Port     int32  `msg:"port"`
	Protocol string `msg:"protocol"`
}

// KubeRequest is a pod's requests as kube-scheduler's scoring counts them:
// milli-CPU, memory bytes and nvidia.com/gpu devices as written, and
// milli-CPU and memory with kube-scheduler's defaults (100m, 200Mi) for
// containers that request none.
type KubeRequest struct {
	MilliCPU        int64 `msg:"cpu"`
	Memory          int64 `msg:"memory"`
	GPU             int64 `msg:"gpu"`
	NonZeroMilliCPU int64 `msg:"nonZeroCpu"`
	NonZeroMemory   int64 `msg:"nonZeroMemory"`
}

// Node is a node as the session sees it. Idle, Used, Releasing and
// Pipelined change as the session places and evicts tasks; the SDK keeps
// them current.
type Node struct {
	Name          string            `msg:"name"`
	Labels        map[string]string `msg:"labels"`
	Annotations   map[string]string `msg:"annotations"`
	Taints        []Taint           `msg:"taints"`
	Unschedulable bool              `msg:"unschedulable"`
	Allocatable   Resource          `msg:"allocatable"`
	Idle          Resource          `msg:"idle"`
	Used          Resource          `msg:"used"`
	Releasing     Resource          `msg:"releasing"`
	Pipelined     Resource          `msg:"pipelined"`
	Pods          int32             `msg:"pods"`
	// KubeRequested sums KubeRequest over the Pods pods on the node when the
	// session opened, those of jobs outside the view included. HostPorts
	// lists their host ports, one entry per container port. Neither
	// follows the session's placements: a plugin that needs them current
	// follows the events (EventObserver).
	KubeRequested KubeRequest `msg:"kubeRequested"`
	HostPorts     []HostPort  `msg:"hostPorts"`
	// Images are the images the node reports (ABI 1.4).
	Images []Image `msg:"images"`
	// Others are the pods on the node when the session opened that are not
	// tasks of the view (other schedulers' pods, jobs outside the session):
	// what inter-pod affinity and topology spread count of them (ABI 1.4).
	// The view's tasks on the node are those whose Node is its handle.
	Others []Pod `msg:"others"`
	// GPUs are the node's GPU sharing cards when the session opened, in ID
	// order, the unhealthy ones flagged; none on a node whose capacity
	// does not state both volcano.sh/gpu-memory and volcano.sh/gpu-number
	// (ABI 1.12). They do not follow the session's placements: a plugin
	// placing GPU pods follows its own Allocate answers.
	GPUs []GPU `msg:"gpus"`

	// Handle is the node's index in View.Nodes.
	Handle int32 `msg:"-"`
}

// GPU is one card of a node's GPU sharing: its number (as the
// volcano.sh/gpu-index annotation names it), its memory, the memory the
// pods holding it ask for, and how many pods hold it (none: idle).
type GPU struct {
	ID      int32 `msg:"id"`
	Memory  int64 `msg:"memory"`
	Used    int64 `msg:"used"`
	Holders int32 `msg:"holders"`
	// Unhealthy: the node's volcano.sh/gpu-unhealthy-ids lists the card,
	// and nothing is placed on it.
	Unhealthy bool `msg:"unhealthy"`
}

// Queue is a queue of jobs.
type Queue struct {
	Name        string            `msg:"name"`
	Weight      int32             `msg:"weight"`
	Capability  Resource          `msg:"capability"`
	Guarantee   Resource          `msg:"guarantee"`
	State       string            `msg:"state"`
	Annotations map[string]string `msg:"annotations"`
	// Priority is the queue's spec.priority; a higher one goes first.
	Priority int32 `msg:"priority"`
	// Parent is the queue's spec.parent, "" when it names none (where
	// queues form a tree, the root queue is then the parent). From a
	// scheduler of ABI 1.7 or later.
	Parent string `msg:"parent"`
	// Deserved is the queue's spec.deserved, nil when it states none. From
	// a scheduler of ABI 1.7 or later.
	Deserved *Resource `msg:"deserved"`
	// Reclaimable is the queue's spec.reclaimable, nil when unset, which
	// means reclaimable (IsReclaimable). From a scheduler of ABI 1.7 or
	// later.
	Reclaimable *bool `msg:"reclaimable"`

	// Handle is the queue's index in View.Queues.
	Handle int32 `msg:"-"`
}

// Job is a PodGroup and its tasks.
type Job struct {
	Namespace    string            `msg:"namespace"`
	Name         string            `msg:"name"`
	Queue        int32             `msg:"queue"`
	Priority     int32             `msg:"priority"`
	MinAvailable int32             `msg:"minAvailable"`
	MinResources Resource          `msg:"minResources"`
	Phase        string            `msg:"phase"`
	Labels       map[string]string `msg:"labels"`
	Annotations  map[string]string `msg:"annotations"`
	CreationTime int64             `msg:"creationTime"`
	// MinTaskMember is the PodGroup's spec.minTaskMember: the least number
	// of tasks of each role the job needs.
	MinTaskMember map[string]int32 `msg:"minTaskMember"`
	// NetworkTopology is the PodGroup's spec.networkTopology as the
	// scheduler resolved it at session open, nil when it has none (ABI 1.9).
	NetworkTopology *NetworkTopology `msg:"networkTopology"`
	// AllocatedHyperNode is the handle of the lowest hypernode holding what
	// the job placed, as the session opened; nil for none (ABI 1.9). The
	// hypernode hooks bring the current one (HyperNodeSearch.Allocated).
	AllocatedHyperNode *int32 `msg:"allocatedHyperNode"`

	// Handle is the job's index in View.Jobs.
	Handle int32 `msg:"-"`
	// Tasks are the job's tasks, in handle order, for this session: the
	// next session's list reuses the array.
	Tasks []*Task `msg:"-"`
}

// PodGroup phases, as Volcano names them.
const (
	PodGroupPending   = "Pending"
	PodGroupInqueue   = "Inqueue"
	PodGroupRunning   = "Running"
	PodGroupUnknown   = "Unknown"
	PodGroupCompleted = "Completed"
)

// Task statuses, as Volcano names them.
const (
	Pending   = "Pending"
	Allocated = "Allocated"
	Pipelined = "Pipelined"
	Binding   = "Binding"
	Bound     = "Bound"
	Running   = "Running"
	Releasing = "Releasing"
	Succeeded = "Succeeded"
	Failed    = "Failed"
	Unknown   = "Unknown"
)

// Task is one pod of a job.
type Task struct {
	Namespace    string            `msg:"namespace"`
	Name         string            `msg:"name"`
	Job          int32             `msg:"job"`
	Status       string            `msg:"status"`
	Node         int32             `msg:"node"` // -1 when on no node
	Priority     int32             `msg:"priority"`
	Request      Resource          `msg:"request"`
	InitRequest  Resource          `msg:"initRequest"`
	Labels       map[string]string `msg:"labels"`
	Annotations  map[string]string `msg:"annotations"`
	NodeSelector map[string]string `msg:"nodeSelector"`
	Tolerations  []Toleration      `msg:"tolerations"`
	Preemptable  bool              `msg:"preemptable"`
	Role         string            `msg:"role"`
	CreationTime int64             `msg:"creationTime"`
	// PriorityClassName is the pod's spec.priorityClassName.
	PriorityClassName string `msg:"priorityClassName"`
	// BestEffort: the task requests no resources (Volcano's BestEffort).
	BestEffort bool `msg:"bestEffort"`
	// NodeAffinity is the pod's node affinity, nil when it has none.
	NodeAffinity *NodeAffinity `msg:"nodeAffinity"`
	// HostPorts are the host ports of the pod's containers.
	HostPorts []HostPort `msg:"hostPorts"`
	// KubeRequest is the pod's requests as kube-scheduler's scoring counts them.
	KubeRequest KubeRequest `msg:"kubeRequest"`
	// Terminating: the pod is being deleted (ABI 1.4).
	Terminating bool `msg:"terminating"`
	// PodAffinity and PodAntiAffinity are the pod's inter-pod affinity
	// terms, nil when it has none (ABI 1.4).
	PodAffinity     *PodAffinity `msg:"podAffinity"`
	PodAntiAffinity *PodAffinity `msg:"podAntiAffinity"`
	// AffinityError is kube-scheduler's error parsing those terms; the
	// kinds that failed are left out (ABI 1.4).
	AffinityError string `msg:"affinityError"`
	// SpreadConstraints are the pod's topology spread constraints, in
	// spec order (ABI 1.4).
	SpreadConstraints []SpreadConstraint `msg:"spreadConstraints"`
	// SpreadDefaulted: the pod states no spread constraints, and
	// SpreadConstraints are kube-scheduler's system defaults over the pods
	// its Services and controller select, which score but never filter;
	// nodes lacking a topology key then still take part (ABI 1.4).
	SpreadDefaulted bool `msg:"spreadDefaulted"`
	// Images are the images of the pod's init and app containers, in that
	// order, with kube-scheduler's ":latest" added to untagged names
	// (ABI 1.4).
	Images []string `msg:"images"`
	// GPUMemory and GPUNumber are the pod's volcano.sh/gpu-memory and
	// volcano.sh/gpu-number as Volcano's deviceshare reads them: the sum
	// of its containers' limits, or the largest init container's when that
	// is more; 0 for none (ABI 1.12).
	GPUMemory int64 `msg:"gpuMemory"`
	GPUNumber int64 `msg:"gpuNumber"`

	// Handle is the task's index in View.Tasks.
	Handle int32 `msg:"-"`
}

// View is the cluster as one session sees it. An object's handle is its
// index in its list.
type View struct {
	Nodes  []Node  `msg:"nodes"`
	Queues []Queue `msg:"queues"`
	Jobs   []Job   `msg:"jobs"`
	Tasks  []Task  `msg:"tasks"`
	// Plugins names the policy of each of the session's plugins, in
	// configuration order: a native plugin's name, or the name a Wasm
	// module declares (its Plugin.Name), whatever its file is called.
	Plugins []string `msg:"plugins"`
	// Namespaces are the labels of the cluster's namespaces, by name
	// (ABI 1.4).
	Namespaces NamespaceLabels `msg:"namespaces"`
	// DisruptionBudgets and ResourceQuotas are the cluster's
	// PodDisruptionBudgets and ResourceQuotas, in namespace and name order
	// (ABI 1.8).
	DisruptionBudgets DisruptionBudgets `msg:"disruptionBudgets"`
	ResourceQuotas    ResourceQuotas    `msg:"resourceQuotas"`
	// HyperNodes are the session's hypernodes, the cluster top included, in
	// name order; a hypernode's handle is its index here (ABI 1.9).
	HyperNodes HyperNodes `msg:"hyperNodes"`
	// TaskClaims are the claims of the tasks that use any, in task handle
	// order, and VolumeLimits the CSI attach limits of the nodes whose
	// CSINode states any, in node handle order (ABI 1.10); Session.Claims
	// and Session.VolumeLimits find them by task and node.
	TaskClaims   TaskClaimsList   `msg:"taskClaims"`
	VolumeLimits VolumeLimitsList `msg:"volumeLimits"`
}

// TaskClaimsList is View.TaskClaims.
type TaskClaimsList []TaskClaims

// TaskClaims are a task's PersistentVolumeClaims, in the order of the
// pod's volumes, and ResourceClaims, in spec order (ABI 1.10).
type TaskClaims struct {
	Task    int32         `msg:"task"`
	Volumes []VolumeClaim `msg:"volumes"`
	Devices []DeviceClaim `msg:"devices"`
}

// VolumeClaim is a PersistentVolumeClaim of the task's namespace: a
// generic ephemeral volume's is named <pod>-<volume>. Volume is the
// PersistentVolume it is bound to, "" while unbound or when the claim does
// not exist; StorageClass is its class, "" for none.
type VolumeClaim struct {
	Name         string `msg:"name"`
	Volume       string `msg:"volume"`
	StorageClass string `msg:"storageClass"`
}

// DeviceClaim is a ResourceClaim of the task's namespace with the devices
// of its allocation as the session opened, "driver/pool/device"; none
// while unallocated.
type DeviceClaim struct {
	Name    string   `msg:"name"`
	Devices []string `msg:"devices"`
}

// VolumeLimitsList is View.VolumeLimits.
type VolumeLimitsList []NodeVolumeLimits

// NodeVolumeLimits are a node's CSI attach limits: the most volumes of
// each driver it attaches.
type NodeVolumeLimits struct {
	Node   int32            `msg:"node"`
	Limits map[string]int32 `msg:"limits"`
}

//msgp:tuple NodeClaims ClaimCheck

// NodeClaimsList is predicate_batch's claims (ABI 1.10), one entry per
// node of the batch.
type NodeClaimsList []*NodeClaims

// NodeClaims are the scheduler's volume and device checks on one node of a
// predicate_batch, for a plugin that implements ClaimChecker (ABI 1.10):
// the failed checks in the order the native plugin runs them, ending at the
// first that ends the node's filtering, and whether some check rules the
// node out whatever else (what Volcano's preempt and reclaim read where
// the node lacks the resources).
type NodeClaims struct {
	RuledOut bool
	Checks   []ClaimCheck
}

// ClaimCheck is one failed check: its stage (a ClaimStage), its status
// code (a Code) and its reasons.
type ClaimCheck struct {
	Stage   int32
	Code    int32
	Reasons []string
}

// HyperNodes are the view's hypernodes.
type HyperNodes []HyperNode

// HyperNode is a hypernode of the session: a network switch's tier
// grouping nodes and lower hypernodes (ABI 1.9). Nodes are the handles of
// the nodes directly under it, those none of its child hypernodes holds,
// in handle order; its nodes at every depth are these and its
// descendants'.
type HyperNode struct {
	Name string `msg:"name"`
	Tier int32  `msg:"tier"`
	// Parent is the parent's handle, -1 for the cluster top.
	Parent int32   `msg:"parent"`
	Nodes  []int32 `msg:"nodes"`

	// Handle is the hypernode's index in View.HyperNodes.
	Handle int32 `msg:"-"`
}

// NetworkTopology is a job's network topology as the scheduler resolved
// it: a highestTierName becomes its tier, and soft mode becomes hard up to
// the cluster top's tier, as Volcano does at session open. HighestTier is
// nil when the job names a tier no hypernode has.
type NetworkTopology struct {
	Mode        string `msg:"mode"`
	HighestTier *int32 `msg:"highestTier"`
}

// Network topology modes, as Volcano names them.
const (
	TopologyHard = "hard"
	TopologySoft = "soft"
)

// DisruptionBudgets are the view's PodDisruptionBudgets.
type DisruptionBudgets []DisruptionBudget

// DisruptionBudget is a PodDisruptionBudget (policy/v1): its selector (nil
// when the budget has none, no requirements when it is empty; Volcano's
// pdb plugin matches nothing with either), the disruptions its status
// allows, and the pods its status lists as disrupted already.
type DisruptionBudget struct {
	Namespace          string    `msg:"namespace"`
	Name               string    `msg:"name"`
	Selector           *Selector `msg:"selector"`
	DisruptionsAllowed int32     `msg:"disruptionsAllowed"`
	DisruptedPods      []string  `msg:"disruptedPods"`
}

// ResourceQuotas are the view's ResourceQuotas.
type ResourceQuotas []ResourceQuota

// ResourceQuota is a ResourceQuota's status: status.hard and status.used
// by resource name ("requests.cpu", "pods", ...), each in thousandths of
// its unit.
type ResourceQuota struct {
	Namespace string           `msg:"namespace"`
	Name      string           `msg:"name"`
	Hard      map[string]int64 `msg:"hard"`
	Used      map[string]int64 `msg:"used"`
}

// NamespaceLabels are namespaces' labels by namespace name; a namespace
// without an object has none.
type NamespaceLabels map[string]map[string]string

// Image is an image a node reports: its names and size in bytes.
type Image struct {
	Names []string `msg:"names"`
	Size  int64    `msg:"size"`
}

// Pod is a pod on a node that is not a task of the view.
type Pod struct {
	Namespace       string            `msg:"namespace"`
	Name            string            `msg:"name"`
	Labels          map[string]string `msg:"labels"`
	Terminating     bool              `msg:"terminating"`
	PodAffinity     *PodAffinity      `msg:"podAffinity"`
	PodAntiAffinity *PodAffinity      `msg:"podAntiAffinity"`
}

// Selector is a label selector as kube-scheduler reads it: its
// requirements (In, NotIn, Exists, DoesNotExist) ANDed. A nil *Selector
// matches nothing; one without requirements matches every pod.
type Selector struct {
	Requirements []NodeSelectorRequirement `msg:"requirements"`
}

// PodAffinityTerm is a pod affinity term as kube-scheduler parses it:
// matchLabelKeys and mismatchLabelKeys already merged into Selector, and
// Namespaces the owning pod's own namespace when the term names neither
// namespaces nor a namespace selector.
type PodAffinityTerm struct {
	Selector          *Selector `msg:"selector"`
	Namespaces        []string  `msg:"namespaces"`
	NamespaceSelector *Selector `msg:"namespaceSelector"`
	TopologyKey       string    `msg:"topologyKey"`
}

// WeightedPodAffinityTerm is a preferred term and its weight.
type WeightedPodAffinityTerm struct {
	Weight int32           `msg:"weight"`
	Term   PodAffinityTerm `msg:"term"`
}

// PodAffinity is a pod's podAffinity or podAntiAffinity.
type PodAffinity struct {
	Required  []PodAffinityTerm         `msg:"required"`
	Preferred []WeightedPodAffinityTerm `msg:"preferred"`
}

// SpreadConstraint is a topology spread constraint with kube-scheduler's
// defaults filled in (MinDomains 1, NodeAffinityPolicy "Honor",
// NodeTaintsPolicy "Ignore") and matchLabelKeys merged into Selector.
// Error is kube-scheduler's error reading it; the other fields but
// WhenUnsatisfiable are then empty.
type SpreadConstraint struct {
	MaxSkew            int32     `msg:"maxSkew"`
	TopologyKey        string    `msg:"topologyKey"`
	WhenUnsatisfiable  string    `msg:"whenUnsatisfiable"`
	Selector           *Selector `msg:"selector"`
	MinDomains         int32     `msg:"minDomains"`
	NodeAffinityPolicy string    `msg:"nodeAffinityPolicy"`
	NodeTaintsPolicy   string    `msg:"nodeTaintsPolicy"`
	Error              string    `msg:"error"`
}

// OpenArgs is the request of session_open.
type OpenArgs struct {
	View      View           `msg:"view"`
	Arguments map[string]any `msg:"arguments"`
	// ABI (1.5) is the scheduler's ABI version, [major, minor]; absent
	// from a scheduler of 1.4 or earlier.
	ABI []int32 `msg:"abi"`
}

// Args is the request of every hook after session_open: each hook sends
// the fields it needs (docs/abi.md, section 5); the others stay -1 or empty.
type Args struct {
	Task   int32     `msg:"task"`
	Job    int32     `msg:"job"`
	Queue  int32     `msg:"queue"`
	Nodes  []int32   `msg:"nodes"`
	Tasks  []int32   `msg:"tasks"`
	Jobs   []int32   `msg:"jobs"`
	Queues []int32   `msg:"queues"`
	Scores []float64 `msg:"scores"`
	// Trial (ABI 1.4): a predicate_batch made during a preemption dry run
	// in which this plugin takes part (Session.InVictimTrial).
	Trial bool `msg:"trial"`
	// Kind and HyperNode (ABI 1.8): evictable's gang eviction and the
	// hypernode its candidates run in.
	Kind      int32  `msg:"kind"`
	HyperNode string `msg:"hyperNode"`
	// JobHyperNode (ABI 1.9): node_order_batch's hypernode holding what
	// the task's job placed so far (Session.JobHyperNode); -1 for none.
	JobHyperNode int32 `msg:"jobHyperNode"`
	// HyperNodes, Allocated, Within, Scope and Purpose (ABI 1.9): the
	// hypernode hooks' candidates, the job's allocated hypernode (-1 for
	// none), the hypernode searched within (-1 for none), and the search.
	HyperNodes []int32 `msg:"hyperNodes"`
	Allocated  int32   `msg:"allocatedHyperNode"`
	Within     int32   `msg:"within"`
	Scope      int32   `msg:"scope"`
	Purpose    int32   `msg:"purpose"`
	// Claims (ABI 1.10): predicate_batch's volume and device checks, one
	// per node, or none (Session.NodeClaims).
	Claims NodeClaimsList `msg:"claims"`
	// Now (ABI 1.12): allocate's clock, Unix nanoseconds (Placement.Now).
	Now int64 `msg:"now"`
}

// IsReclaimable reports whether other queues may reclaim what this one holds
// beyond its share: unless spec.reclaimable says false.
func (q *Queue) IsReclaimable() bool { return q.Reclaimable == nil || *q.Reclaimable }
