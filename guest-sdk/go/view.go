package caldera

//go:generate go tool msgp -file view.go -o view_gen.go -tests=false

// Resource is an amount of every dimension: milli-CPU, memory bytes, and
// scalar resources (milli-units; "pods" as a count).
type Resource struct {
	MilliCPU int64            `msg:"cpu"`
	Memory   int64            `msg:"memory"`
	Scalars  map[string]int64 `msg:"scalars"`
}

// Scalar returns one scalar dimension, 0 when absent.
func (r *Resource) Scalar(name string) int64 { return r.Scalars[name] }

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
}

// Queue is a queue of jobs.
type Queue struct {
	Name        string            `msg:"name"`
	Weight      int32             `msg:"weight"`
	Capability  Resource          `msg:"capability"`
	Guarantee   Resource          `msg:"guarantee"`
	State       string            `msg:"state"`
	Annotations map[string]string `msg:"annotations"`
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
}

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
}

// View is the cluster as one session sees it. An object's handle is its
// index in its list.
type View struct {
	Nodes  []Node  `msg:"nodes"`
	Queues []Queue `msg:"queues"`
	Jobs   []Job   `msg:"jobs"`
	Tasks  []Task  `msg:"tasks"`
}

// OpenArgs is the request of session_open.
type OpenArgs struct {
	View      View           `msg:"view"`
	Arguments map[string]any `msg:"arguments"`
}

// BatchArgs is the request of the batched task-on-nodes hooks.
type BatchArgs struct {
	Task  int32   `msg:"task"`
	Nodes []int32 `msg:"nodes"`
}
