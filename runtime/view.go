package runtime

import (
	"maps"
	"slices"
	"sort"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// handles maps the session's objects to the handles the guest knows, and
// back.
type handles struct {
	tasks  map[api.TaskID]int32
	nodes  map[string]int32
	jobs   map[api.JobID]int32
	queues map[api.QueueID]int32

	taskList  []*api.TaskInfo
	queueList []*api.QueueInfo
	// jobTasks lists each job's task handles, for task_order_keys.
	jobTasks [][]int32
	// taskJob and jobQueue map a task to its job and a job to its queue
	// (-1 when the queue is not in the session), for keys that only
	// events on an object change.
	taskJob, jobQueue []int32
	// taskShape is each task's shape digest, for NodeLocal modules, and
	// taskRuleShape the same without its inter-pod rules, for tasks whose
	// pre_predicate sent domain rules; taskNode is each task's node handle
	// as the view carries it.
	taskShape, taskRuleShape []uint64
	taskNode                 []int32
	// allNodes, allJobs and allQueues are every handle of their list, the
	// requests of predicate_batch and the order-key hooks.
	allNodes, allJobs, allQueues []int32
	// hyperNodes and hyperNodeList map the session's hypernodes to their
	// handles and back (1.9).
	hyperNodes    map[string]int32
	hyperNodeList []*api.HyperNodeInfo
}

// wireTaints is a node's taints on the wire (nil for none).
func wireTaints(taints []v1.Taint) []abi.Taint {
	var out []abi.Taint
	for _, t := range taints {
		out = append(out, abi.Taint{Key: t.Key, Value: t.Value, Effect: string(t.Effect)})
	}
	return out
}

func wireResource(r *api.Resource) abi.Resource {
	if r == nil {
		return abi.Resource{}
	}
	out := abi.Resource{MilliCPU: int64(r.MilliCPU), Memory: int64(r.Memory)}
	if len(r.Scalars) > 0 {
		out.Scalars = make(map[string]int64, len(r.Scalars))
		for k, v := range r.Scalars {
			out.Scalars[string(k)] = int64(v)
		}
	}
	return out
}

// newHandles numbers the session's objects. Nodes keep the session's order
// (handle = NodeInfo.Index), jobs follow Session.JobList, queues are by
// name, and tasks follow their jobs, each job's by ID.
func newHandles(ssn *framework.Session) handles {
	h := handles{nodes: make(map[string]int32, len(ssn.NodeList)),
		jobs: make(map[api.JobID]int32, len(ssn.JobList)), queues: make(map[api.QueueID]int32, len(ssn.Queues))}
	for i, n := range ssn.NodeList {
		h.nodes[n.Name] = int32(i)
	}
	h.queueList = make([]*api.QueueInfo, 0, len(ssn.Queues))
	for _, q := range ssn.Queues {
		h.queueList = append(h.queueList, q)
	}
	sort.Slice(h.queueList, func(i, j int) bool { return h.queueList[i].Name < h.queueList[j].Name })
	for i, q := range h.queueList {
		h.queues[q.UID] = int32(i)
	}
	tasks := 0
	for _, j := range ssn.JobList {
		tasks += len(j.Tasks)
	}
	h.tasks = make(map[api.TaskID]int32, tasks)
	h.taskList, h.taskJob = make([]*api.TaskInfo, 0, tasks), make([]int32, 0, tasks)
	h.jobQueue, h.jobTasks = make([]int32, 0, len(ssn.JobList)), make([][]int32, 0, len(ssn.JobList))
	var ids []api.TaskID
	for ji, j := range ssn.JobList {
		h.jobs[j.UID] = int32(ji)
		queue, ok := h.queues[j.Queue]
		if !ok {
			queue = -1
		}
		h.jobQueue = append(h.jobQueue, queue)
		ids = ids[:0]
		for id := range j.Tasks {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		mine := make([]int32, 0, len(ids))
		for _, id := range ids {
			th := int32(len(h.taskList))
			h.tasks[id] = th
			h.taskList = append(h.taskList, j.Tasks[id])
			h.taskJob = append(h.taskJob, int32(ji))
			mine = append(mine, th)
		}
		h.jobTasks = append(h.jobTasks, mine)
	}
	h.allNodes, h.allJobs, h.allQueues = sequence(len(ssn.NodeList)), sequence(len(ssn.JobList)), sequence(len(h.queueList))
	h.hyperNodeList, h.hyperNodes = hyperNodeHandles(ssn.HyperNodes)
	return h
}

// nodeHandle is the handle of the node a task names, -1 for none.
func (h *handles) nodeHandle(name string) int32 {
	if n, ok := h.nodes[name]; ok && name != "" {
		return n
	}
	return -1
}

// wireNode is a node as the view carries it; inView are the view's tasks,
// whose pods the node's Others leave out.
func wireNode(n *api.NodeInfo, inView map[api.TaskID]int32) abi.Node {
	wn := abi.Node{
		Name: n.Name, Allocatable: wireResource(n.Allocatable), Idle: wireResource(n.Idle),
		Used: wireResource(n.Used), Releasing: wireResource(n.Releasing), Pipelined: wireResource(n.Pipelined),
		Pods: int32(len(n.Tasks)),
	}
	if n.Node != nil {
		wn.Labels, wn.Annotations, wn.Unschedulable = n.Node.Labels, n.Node.Annotations, n.Node.Spec.Unschedulable
		wn.Taints = wireTaints(n.Node.Spec.Taints)
		wn.Images = wireImages(n.Node.Status.Images)
	}
	wireNodePods(&wn, n)
	wn.Others = wireOthers(n, inView)
	wn.GPUs = wireGPUs(n)
	return wn
}

func wireQueue(q *api.QueueInfo) abi.Queue {
	wq := abi.Queue{Name: q.Name, Weight: q.Weight, Priority: q.Priority}
	if q.Queue != nil {
		wq.Capability = wireResource(api.NewResource(q.Queue.Spec.Capability))
		wq.Guarantee = wireResource(api.NewResource(q.Queue.Spec.Guarantee.Resource))
		wq.State, wq.Annotations = string(q.Queue.Status.State), q.Queue.Annotations
		wq.Parent, wq.Reclaimable = q.Queue.Spec.Parent, q.Queue.Spec.Reclaimable
		if len(q.Queue.Spec.Deserved) != 0 {
			d := wireResource(api.NewResource(q.Queue.Spec.Deserved))
			wq.Deserved = &d
		}
	}
	return wq
}

func wireJob(j *api.JobInfo, queue int32, h *handles) abi.Job {
	wj := abi.Job{Namespace: j.Namespace, Name: j.Name, Queue: queue, Priority: j.Priority,
		MinAvailable: j.MinAvailable, CreationTime: j.CreationTimestamp.UnixMilli(),
		NetworkTopology: wireNetworkTopology(j), AllocatedHyperNode: h.hyperNodeHandle(j.AllocatedHyperNode)}
	if pg := j.PodGroup; pg != nil {
		wj.Phase, wj.Labels, wj.Annotations = string(pg.Status.Phase), pg.Labels, pg.Annotations
		wj.MinTaskMember = pg.Spec.MinTaskMember
		if pg.Spec.MinResources != nil {
			wj.MinResources = wireResource(api.NewResource(*pg.Spec.MinResources))
		}
	}
	return wj
}

// sequence returns 0..n-1.
func sequence(n int) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(i)
	}
	return out
}

// wireTask is a task as the view carries it; spreadDefaults is its pod's
// system default spread selector, nil for none.
func wireTask(t *api.TaskInfo, job, node int32, spreadDefaults labels.Selector) abi.Task {
	wt := abi.Task{Namespace: t.Namespace, Name: t.Name, Job: job, Status: t.Status.String(), Node: node,
		Priority: t.Priority, Request: wireResource(t.Resreq), InitRequest: wireResource(t.InitResreq),
		Preemptable: t.Preemptable, Role: t.TaskRole, BestEffort: t.BestEffort}
	if p := t.Pod; p != nil {
		wt.Labels, wt.Annotations, wt.NodeSelector = p.Labels, withBindAnnotations(p.Annotations, t.BindAnnotations), p.Spec.NodeSelector
		wt.CreationTime = p.CreationTimestamp.UnixMilli()
		wt.PriorityClassName = p.Spec.PriorityClassName
		for _, tol := range p.Spec.Tolerations {
			wt.Tolerations = append(wt.Tolerations, abi.Toleration{Key: tol.Key, Operator: string(tol.Operator), Value: tol.Value, Effect: string(tol.Effect)})
		}
		if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil {
			wt.NodeAffinity = wireNodeAffinity(a.NodeAffinity)
		}
		wt.HostPorts = appendHostPorts(nil, p)
		wt.KubeRequest = kubeRequest(p)
		wirePodRules(&wt, p, spreadDefaults)
		wireTaskGPUs(&wt, t)
	}
	return wt
}

// withBindAnnotations is what the pod will carry once bound: its
// annotations and those a placement of the session gave it for its bind (a
// session opened again on a fresh instance sees the cards its placements
// took). The pod's own map when there are none.
func withBindAnnotations(pod, bind map[string]string) map[string]string {
	if len(bind) == 0 {
		return pod
	}
	out := make(map[string]string, len(pod)+len(bind))
	maps.Copy(out, pod)
	maps.Copy(out, bind)
	return out
}

// PolicyName is the name the module declares, which says what policy it
// implements whatever file name the configuration gives it: the native
// nodeorder plugin, asking whether predicates is configured, finds its port.
func (a *adapter) PolicyName() string {
	if n := a.mod.descriptor.Name; n != "" {
		return n
	}
	return a.name
}

// policyName is the policy a plugin implements: a native plugin's name, a
// module's declared name.
func policyName(p framework.Plugin) string {
	if a, ok := p.(*adapter); ok {
		return a.PolicyName()
	}
	return p.Name()
}

// wireNodePods sums what kube-scheduler's NodeInfo holds of the node's
// pods, those of jobs outside the session included: their scoring
// requests and their host ports.
func wireNodePods(wn *abi.Node, n *api.NodeInfo) {
	for _, t := range n.Tasks {
		if t.Pod == nil {
			continue
		}
		r := kubeRequest(t.Pod)
		sum := &wn.KubeRequested
		sum.MilliCPU += r.MilliCPU
		sum.Memory += r.Memory
		sum.GPU += r.GPU
		sum.NonZeroMilliCPU += r.NonZeroMilliCPU
		sum.NonZeroMemory += r.NonZeroMemory
		wn.HostPorts = appendHostPorts(wn.HostPorts, t.Pod)
	}
	// Tasks is a map: sort so that equal nodes give equal views.
	sort.Slice(wn.HostPorts, func(i, j int) bool {
		a, b := wn.HostPorts[i], wn.HostPorts[j]
		if a.Port != b.Port {
			return a.Port < b.Port
		}
		if a.Protocol != b.Protocol {
			return a.Protocol < b.Protocol
		}
		return a.IP < b.IP
	})
}

// kubeRequest is the pod's requests as the native nodeorder plugin counts
// them, from the same helper, remembered per pod object.
func kubeRequest(p *v1.Pod) abi.KubeRequest { return podRequests.get(p) }

// podRequests remembers each pod's requests across sessions: the helper
// sums containers into maps of quantities (7.5 ms of the 17 ms a session
// spent building its view, in a CPU profile of
// BenchmarkSessionPorts/rust at 1,000 nodes and 2,000 pods), and most pods
// outlive many sessions. The
// informer's pod objects are never changed in place (an update is a new
// object), so the object is the key. A pod no session asked for since the
// previous turn is forgotten at the next.
var podRequests requestCache

type requestCache struct {
	mu    sync.Mutex
	table memoTable[*v1.Pod, abi.KubeRequest]
}

func (c *requestCache) get(p *v1.Pod) abi.KubeRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.table.get(p)
	if !ok {
		q := api.PodScoringRequests(p)
		r = abi.KubeRequest{MilliCPU: q.MilliCPU, Memory: q.Memory, GPU: q.GPU, NonZeroMilliCPU: q.NonZeroMilliCPU, NonZeroMemory: q.NonZeroMemory}
		c.table.put(p, r)
	}
	return r
}

// turn starts a session: what the last one asked for is kept one more.
func (c *requestCache) turn() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.table.turn()
}

// appendHostPorts appends the pod's host ports as the native predicates
// plugin sees them.
func appendHostPorts(out []abi.HostPort, p *v1.Pod) []abi.HostPort {
	for _, hp := range api.PodHostPorts(p) {
		out = append(out, abi.HostPort{IP: hp.IP, Port: hp.Port, Protocol: hp.Protocol})
	}
	return out
}

func wireNodeAffinity(na *v1.NodeAffinity) *abi.NodeAffinity {
	out := &abi.NodeAffinity{}
	if req := na.RequiredDuringSchedulingIgnoredDuringExecution; req != nil {
		out.Required = &abi.NodeSelector{Terms: make([]abi.NodeSelectorTerm, 0, len(req.NodeSelectorTerms))}
		for i := range req.NodeSelectorTerms {
			out.Required.Terms = append(out.Required.Terms, wireTerm(&req.NodeSelectorTerms[i]))
		}
	}
	for i := range na.PreferredDuringSchedulingIgnoredDuringExecution {
		pt := &na.PreferredDuringSchedulingIgnoredDuringExecution[i]
		out.Preferred = append(out.Preferred, abi.PreferredTerm{Weight: pt.Weight, Term: wireTerm(&pt.Preference)})
	}
	if out.Required == nil && out.Preferred == nil {
		return nil
	}
	return out
}

// wireTerm copies a node selector term and says whether kube-scheduler's
// parser accepts it, so that guests need not repeat Kubernetes' label
// syntax rules.
func wireTerm(t *v1.NodeSelectorTerm) abi.NodeSelectorTerm {
	out := abi.NodeSelectorTerm{MatchExpressions: wireRequirements(t.MatchExpressions), MatchFields: wireRequirements(t.MatchFields)}
	if _, err := nodeaffinity.NewNodeSelector(&v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{*t}}); err != nil {
		out.Invalid = true
	}
	return out
}

func wireRequirements(rs []v1.NodeSelectorRequirement) []abi.NodeSelectorRequirement {
	if len(rs) == 0 {
		return nil
	}
	out := make([]abi.NodeSelectorRequirement, len(rs))
	for i, r := range rs {
		out[i] = abi.NodeSelectorRequirement{Key: r.Key, Operator: string(r.Operator), Values: r.Values}
	}
	return out
}
