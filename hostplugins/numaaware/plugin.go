package numaaware

import (
	"fmt"

	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/internal/logonce"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Name is the plugin's name in the configuration.
const Name = "numa-aware"

// WeightKey is the plugin's one argument.
const WeightKey = "weight"

// maxNodeScore is Volcano's DefaultMaxNodeScore, the best node score
// before the weight.
const maxNodeScore = 100

// Plugin places Guaranteed pods where the kubelet can align their CPUs to
// NUMA nodes, and prefers nodes where they span fewer.
type Plugin struct {
	weight int
	// nodes holds, for the session's nodes with NUMA information, their
	// topology and the CPU sets still free, less what this session placed.
	nodes map[string]*sessionNode
	// proposed holds the CPUs the predicate picked for a task on each node
	// it passed.
	proposed map[api.TaskID]map[string]api.NumaSets
	// placed holds the tasks allocated in this session: their node and
	// the CPUs taken there.
	placed map[api.TaskID]placement
}

type sessionNode struct {
	*nodeTopology
	free api.NumaSets
}

type placement struct {
	node string
	sets api.NumaSets
}

var (
	_ framework.Plugin          = &Plugin{}
	_ framework.Predicater      = &Plugin{}
	_ framework.BatchNodeScorer = &Plugin{}
	_ framework.EventHandler    = &Plugin{}
)

// New parses the arguments: weight (1), taken as given, as in Volcano.
func New(a framework.Arguments) (framework.Plugin, error) {
	p := &Plugin{weight: 1}
	if err := a.Int(WeightKey, &p.weight); err != nil {
		return nil, err
	}
	if err := a.RejectUnknown(WeightKey); err != nil {
		return nil, err
	}
	return p, nil
}

// Name returns "numa-aware".
func (p *Plugin) Name() string { return Name }

// OnSessionOpen reads the NUMA information of the session's nodes, and
// says once about each pending pod whose topology policy annotation
// cannot do what it asks.
func (p *Plugin) OnSessionOpen(ssn *framework.Session) {
	p.nodes = map[string]*sessionNode{}
	p.proposed = map[api.TaskID]map[string]api.NumaSets{}
	p.placed = map[api.TaskID]placement{}
	for _, n := range ssn.Nodes {
		if n.Numa == nil {
			continue
		}
		p.nodes[n.Name] = &sessionNode{nodeTopology: newNodeTopology(n.Numa), free: n.Numa.Allocatable.Clone()}
	}
	for _, job := range ssn.JobList {
		for _, t := range job.TaskStatusIndex[api.Pending] {
			warnAboutPolicy(t)
		}
	}
}

// warnAboutPolicy logs, once, a policy annotation on a pod that is not
// Guaranteed, which is ignored, and one that is not a policy.
func warnAboutPolicy(t *api.TaskInfo) {
	if !asksForPolicy(t) {
		return
	}
	want := t.NumaPolicy()
	if qos := api.PodQOS(t.Pod); qos != v1.PodQOSGuaranteed {
		logonce.Warning(Name, fmt.Sprintf("pod %s: %s %q is ignored: the pod's QoS class is %s, and only Guaranteed pods get CPUs of their own", t.Key(), api.NumaPolicyAnnotation, want, qos))
		return
	}
	if !api.KnownTopologyPolicy(want) {
		logonce.Warning(Name, fmt.Sprintf("pod %s: %s %q is not a topology manager policy (none, best-effort, restricted, single-numa-node): the pod fits only nodes whose Numatopology names that very policy", t.Key(), api.NumaPolicyAnnotation, want))
	}
}

// asksForPolicy reports whether a task's pod names a topology policy
// other than none.
func asksForPolicy(t *api.TaskInfo) bool {
	want := t.NumaPolicy()
	return want != "" && want != api.TopologyPolicyNone
}

// Predicate lets a Guaranteed pod on a node only if its node's topology
// policy admits each of its containers, and notes the CPUs it would get.
func (p *Plugin) Predicate(task *api.TaskInfo, node *api.NodeInfo) *framework.Status {
	if api.PodQOS(task.Pod) != v1.PodQOSGuaranteed {
		return nil
	}
	n, reason := p.nodeFor(task, node)
	if n == nil {
		if reason == "" {
			return nil
		}
		return framework.NewStatus(framework.Error, reason)
	}
	free := n.free.Clone()
	pol := policyFor(node.Numa.TopologyManagerPolicy)
	picked := api.NumaSets{}
	containers := task.Pod.Spec.Containers
	for i := range containers {
		c := &containers[i]
		best, ok := pol.admit(n.numaNodes, []providerHints{cpuHints(c, n.nodeTopology, free)})
		if !ok {
			delete(p.proposed[task.UID], node.Name)
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("container %s cannot be assigned by numa", c.Name))
		}
		for res, set := range cpuAllocate(c, best, n.nodeTopology, free) {
			picked[res] = picked[res].Union(set)
			free[res] = free[res].Difference(set)
		}
	}
	if p.proposed[task.UID] == nil {
		p.proposed[task.UID] = map[string]api.NumaSets{}
	}
	p.proposed[task.UID][node.Name] = picked
	return nil
}

// nodeFor returns the node's NUMA state when the plugin decides for the
// task there. A task that asks for a policy needs a node whose kubelet
// runs the static CPU manager with that very topology policy and has free
// CPUs; otherwise the reason says why not, in Volcano's words. A task
// that asks for none is decided only on nodes with the static CPU manager
// and a topology policy other than none; elsewhere it passes (nil, "").
func (p *Plugin) nodeFor(task *api.TaskInfo, node *api.NodeInfo) (*sessionNode, string) {
	info := node.Numa
	if asksForPolicy(task) {
		switch want := task.NumaPolicy(); {
		case info == nil:
			return nil, "numa info is empty"
		case info.CPUManagerPolicy != api.CPUManagerPolicyStatic:
			return nil, "cpu manager policy isn't static"
		case want != info.TopologyManagerPolicy:
			return nil, fmt.Sprintf("task topology policy[%s] is different with node[%s]", want, info.TopologyManagerPolicy)
		case p.nodes[node.Name] == nil:
			return nil, "no topo information"
		case p.nodes[node.Name].free[cpuResource].Size() == 0:
			return nil, "cpu allocatable map is empty"
		}
		return p.nodes[node.Name], ""
	}
	if info == nil || info.CPUManagerPolicy != api.CPUManagerPolicyStatic ||
		info.TopologyManagerPolicy == "" || info.TopologyManagerPolicy == api.TopologyPolicyNone {
		return nil, ""
	}
	return p.nodes[node.Name], ""
}

// BatchNodeOrder scores, for a task that asks for a topology policy, the
// nodes by the NUMA nodes its CPUs would span there: the fewest score 100,
// the most 0, in proportion (Volcano's NormalizeScore, reversed, in whole
// numbers), times the weight. Other tasks are not scored.
func (p *Plugin) BatchNodeOrder(task *api.TaskInfo, nodes []*api.NodeInfo, scores []float64) error {
	proposed, ok := p.proposed[task.UID]
	if !ok || !asksForPolicy(task) {
		return nil
	}
	spans := make([]int64, len(nodes))
	var widest int64
	for i, node := range nodes {
		var details cpuDetails
		if n := p.nodes[node.Name]; n != nil {
			details = n.topo.details
		}
		var mask numaMask
		for _, cpu := range proposed[node.Name][cpuResource].UnsortedList() {
			mask |= maskOf(details[cpu].NUMANode)
		}
		spans[i] = int64(mask.count())
		widest = max(widest, spans[i])
	}
	for i, span := range spans {
		score := int64(maxNodeScore)
		if widest > 0 {
			score = maxNodeScore - maxNodeScore*span/widest
		}
		scores[i] += float64(score * int64(p.weight))
	}
	return nil
}

// OnAllocate takes the CPUs the predicate picked for the task on its node
// off the node's free sets.
func (p *Plugin) OnAllocate(task *api.TaskInfo) {
	sets, ok := p.proposed[task.UID][task.NodeName]
	if !ok {
		return
	}
	if n := p.nodes[task.NodeName]; n != nil {
		n.free.Take(sets)
	}
	p.placed[task.UID] = placement{node: task.NodeName, sets: sets}
}

// OnDeallocate gives back what OnAllocate took.
func (p *Plugin) OnDeallocate(task *api.TaskInfo) {
	pl, ok := p.placed[task.UID]
	if !ok || pl.node != task.NodeName {
		return
	}
	delete(p.placed, task.UID)
	if n := p.nodes[pl.node]; n != nil {
		n.free.Give(pl.sets)
	}
}

// OnSessionClose hands the CPUs taken by the tasks placed in the session
// to the cache, by node, which keeps them from later sessions until the
// nodes' agents report again.
func (p *Plugin) OnSessionClose(ssn *framework.Session) {
	assigned := map[string]api.NumaSets{}
	for _, pl := range p.placed {
		sets := assigned[pl.node]
		if sets == nil {
			sets = api.NumaSets{}
			assigned[pl.node] = sets
		}
		for res, set := range pl.sets {
			sets[res] = sets[res].Union(set)
		}
	}
	ssn.UpdateNumaSets(assigned)
	p.nodes, p.proposed, p.placed = nil, nil, nil
}
