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
}

// Queue is one queue.
type Queue struct {
	Name        string            `msgpack:"name"`
	Weight      int32             `msgpack:"weight"`
	Capability  Resource          `msgpack:"capability"`
	Guarantee   Resource          `msgpack:"guarantee"`
	State       string            `msgpack:"state"`
	Annotations map[string]string `msgpack:"annotations,omitempty"`
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
	MinTaskMember map[string]int32 `msgpack:"minTaskMember,omitempty"`
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
}

// View is the whole session view sent with session_open.
type View struct {
	Nodes  []Node  `msgpack:"nodes,omitempty"`
	Queues []Queue `msgpack:"queues,omitempty"`
	Jobs   []Job   `msgpack:"jobs,omitempty"`
	Tasks  []Task  `msgpack:"tasks,omitempty"`
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
}

// Verdict is one node's answer in a predicate_batch reply: [code, reason].
type Verdict struct {
	_msgpack struct{} `msgpack:",as_array"`
	Code     Code
	Reason   string
}
