package deviceshare

import (
	"fmt"
	"strconv"
	"time"

	"k8s.io/klog/v2"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
	"github.com/caldera-scheduler/caldera/scheduler/gpushare"
)

// The resources and annotations of Volcano's GPU sharing (gpushare).
const (
	GPUMemoryResource       = gpushare.MemoryResource
	GPUNumberResource       = gpushare.NumberResource
	GPUIndexAnnotation      = gpushare.IndexAnnotation
	PredicateTimeAnnotation = gpushare.PredicateTimeAnnotation
	UnhealthyGPUsAnnotation = gpushare.UnhealthyAnnotation
)

// Name is the plugin's name in the configuration.
const Name = "deviceshare"

// now is the clock of the predicate time written at bind.
var now = time.Now

// Plugin places pods that share GPUs by memory, or take whole GPUs by
// number, and names the cards they get.
type Plugin struct {
	args args
	// gpus holds the session's cards of every node that has some; built at
	// session open and read by Predicate, which may run concurrently, and
	// changed only by the allocate events, which do not.
	gpus map[string]*gpushare.Node
	// given remembers the cards each allocate event took, so that its
	// deallocate gives back exactly those.
	given map[api.TaskID]grant
}

type grant struct {
	node string
	ids  []int
}

var (
	_ framework.Predicater      = &Plugin{}
	_ framework.EventHandler    = &Plugin{}
	_ framework.AllocateRefuser = &Plugin{}
	_ framework.HookFilter      = &Plugin{}
)

// New parses the arguments.
func New(a framework.Arguments) (framework.Plugin, error) {
	parsed, err := parseArgs(a)
	if err != nil {
		return nil, err
	}
	return &Plugin{args: parsed}, nil
}

// Name returns "deviceshare".
func (p *Plugin) Name() string { return Name }

// Offers its hooks only when GPU sharing or GPU numbers are on: Volcano
// registers no device otherwise, and its predicate passes every pod.
func (p *Plugin) Offers(framework.Hook) bool { return p.args.sharing || p.args.number }

// OnSessionOpen reads every node's cards and the pods on them.
func (p *Plugin) OnSessionOpen(ssn *framework.Session) {
	p.gpus = map[string]*gpushare.Node{}
	p.given = map[api.TaskID]grant{}
	for _, n := range ssn.NodeList {
		if g := gpushare.Read(n); g != nil {
			p.gpus[n.Name] = g
		}
	}
}

// OnSessionClose drops the session's cards.
func (p *Plugin) OnSessionClose(*framework.Session) { p.gpus, p.given = nil, nil }

// requests says what the pod asks of the enabled kind: memory of one card
// with sharing, whole cards with numbers.
func (p *Plugin) requests(task *api.TaskInfo) (memory, number int64) {
	if p.args.sharing {
		memory = gpushare.MemoryOf(task.Pod)
	}
	if p.args.number {
		number = gpushare.NumberOf(task.Pod)
	}
	return memory, number
}

// Predicate fails a node whose cards cannot hold the pod's request. Nodes
// without cards pass, as in Volcano: the resource fit turns away a pod
// asking for a resource the node lacks.
func (p *Plugin) Predicate(task *api.TaskInfo, node *api.NodeInfo) *framework.Status {
	memory, number := p.requests(task)
	g := p.gpus[node.Name]
	if g == nil || (memory <= 0 && number <= 0) {
		return nil
	}
	if memory > 0 {
		if _, ok := g.FitByMemory(memory); !ok {
			return framework.NewStatus(framework.Unschedulable, "GpuShare no enough gpu memory on node "+node.Name)
		}
	}
	if number > 0 {
		if _, ok := g.FitByNumber(number); !ok {
			return framework.NewStatus(framework.Unschedulable, "GpuNumber no enough gpu number on node "+node.Name)
		}
	}
	return nil
}

// TryAllocate gives the pod its cards on its node and the annotations that
// name them at bind; it refuses the placement when the cards cannot hold
// it (another placement took them since the predicate).
func (p *Plugin) TryAllocate(task *api.TaskInfo) error {
	memory, number := p.requests(task)
	g := p.gpus[task.NodeName]
	if g == nil || (memory <= 0 && number <= 0) {
		return nil
	}
	if _, done := p.given[task.UID]; done {
		return nil
	}
	var ids []int
	if memory > 0 {
		id, ok := g.FitByMemory(memory)
		if !ok {
			return fmt.Errorf("deviceshare: no GPU on node %s has %d of %s free for pod %s", g.Name, memory, GPUMemoryResource, task.Key())
		}
		ids = []int{id}
	} else {
		var ok bool
		if ids, ok = g.FitByNumber(number); !ok {
			return fmt.Errorf("deviceshare: node %s has fewer than %d idle GPUs for pod %s", g.Name, number, task.Key())
		}
	}
	g.Take(task.UID, ids, gpushare.MemoryOf(task.Pod))
	p.given[task.UID] = grant{node: g.Name, ids: ids}
	stamp, index := strconv.FormatInt(now().UnixNano(), 10), gpushare.IndexValue(ids)
	task.SetBindAnnotations(map[string]*string{PredicateTimeAnnotation: &stamp, GPUIndexAnnotation: &index})
	return nil
}

// OnAllocate is TryAllocate where a refusal cannot be heard (backfill):
// the pod goes without cards named, and the log says so.
func (p *Plugin) OnAllocate(task *api.TaskInfo) {
	if err := p.TryAllocate(task); err != nil {
		klog.ErrorS(err, "GPU placement failed after the predicate passed", "pod", task.Key())
	}
}

// OnDeallocate gives back the cards the pod was given.
func (p *Plugin) OnDeallocate(task *api.TaskInfo) {
	gr, ok := p.given[task.UID]
	if !ok {
		return
	}
	delete(p.given, task.UID)
	p.gpus[gr.node].Give(task.UID, gr.ids)
	task.SetBindAnnotations(map[string]*string{PredicateTimeAnnotation: nil, GPUIndexAnnotation: nil})
}
