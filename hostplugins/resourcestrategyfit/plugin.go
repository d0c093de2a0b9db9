package resourcestrategyfit

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/caldera-scheduler/caldera/internal/logonce"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Name is the plugin's name in the configuration.
const Name = "resource-strategy-fit"

// The pod annotations that choose a pod's own strategy: the type for every
// resource, and the resources it scores with their weights (JSON).
const (
	StrategyAnnotation       = "volcano.sh/resource-strategy-scoring-type"
	StrategyWeightAnnotation = "volcano.sh/resource-strategy-weight"
)

// maxNodeScore is kube-scheduler's framework.MaxNodeScore.
const maxNodeScore = 100

// Plugin scores nodes by per-resource strategies and scarce resource
// avoidance, and with the proportional policy keeps CPU and memory idle
// beside scarce resources.
type Plugin struct {
	args args
	// proportionalNames lists the proportional resources in name order, so
	// that a failure names the same resource each time.
	proportionalNames []v1.ResourceName
}

var (
	_ framework.Plugin     = &Plugin{}
	_ framework.Predicater = &Plugin{}
	_ framework.NodeScorer = &Plugin{}
	_ framework.HookFilter = &Plugin{}
)

// New parses the arguments.
func New(a framework.Arguments) (framework.Plugin, error) {
	parsed, err := parseArgs(a)
	if err != nil {
		return nil, err
	}
	p := &Plugin{args: parsed}
	for name := range parsed.proportional {
		p.proportionalNames = append(p.proportionalNames, name)
	}
	sort.Slice(p.proportionalNames, func(i, j int) bool { return p.proportionalNames[i] < p.proportionalNames[j] })
	return p, nil
}

// Name returns "resource-strategy-fit".
func (p *Plugin) Name() string { return Name }

// OnSessionOpen does nothing: the plugin keeps no session state.
func (p *Plugin) OnSessionOpen(*framework.Session) {}

// OnSessionClose does nothing.
func (p *Plugin) OnSessionClose(*framework.Session) {}

// Offers the predicate only with the proportional policy, and the score
// only while the strategy or sra weight is positive, as Volcano registers
// them.
func (p *Plugin) Offers(h framework.Hook) bool {
	switch h {
	case framework.HookPredicate:
		return p.args.proportional != nil
	case framework.HookNodeOrder:
		return p.args.weight > 0 || p.args.sra.weight > 0
	}
	return false
}

// Predicate (the proportional policy): a task that requests none of the
// proportional resources may not leave a node, once placed, with less idle
// CPU or memory than the node's idle proportional resources call for.
func (p *Plugin) Predicate(task *api.TaskInfo, node *api.NodeInfo) *framework.Status {
	for _, name := range p.proportionalNames {
		if task.Resreq.Get(name) > 0 {
			return nil
		}
	}
	for _, name := range p.proportionalNames {
		idle, ok := node.Idle.Scalars[name]
		if !ok {
			continue
		}
		r := p.args.proportional[name]
		// Volcano's units: scalars in milli-units, so 1000 per device; its
		// memory rate is in megabytes (10^6 bytes) per device.
		if node.Idle.MilliCPU-task.Resreq.MilliCPU < idle*r.cpu || node.Idle.Memory-task.Resreq.Memory < idle*r.memory*1000*1000 {
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("proportional of resource %s check failed", name))
		}
	}
	return nil
}

// NodeOrder adds the strategy score and the sra score.
func (p *Plugin) NodeOrder(task *api.TaskInfo, node *api.NodeInfo) (float64, error) {
	score := 0.0
	if p.args.weight > 0 {
		score += p.strategyScore(task, node)
	}
	if p.args.sra.weight > 0 {
		score += p.sraScore(task, node)
	}
	return score, nil
}

// strategyScore scores each resource the task requests that has a
// strategy (the pod's own, from its annotations, or the configured one:
// the exact name, else the wildcard with the longest prefix) by how free
// (LeastAllocated) or full (MostAllocated) the node would be, weighs them,
// and scales the weighted mean to [0, 100 x weight]. A node the task does
// not fit in some scored resource scores 0.
func (p *Plugin) strategyScore(task *api.TaskInfo, node *api.NodeInfo) float64 {
	podType, podWeights, ok := podStrategy(task)
	if !ok {
		return 0
	}
	score, weightSum := 0.0, 0
	for _, name := range task.Resreq.ResourceNames() {
		var st strategy
		if podType != "" {
			w, ok := podWeights[name]
			if !ok {
				continue
			}
			st = strategy{kind: podType, weight: w}
		} else if st, ok = p.strategyOf(name); !ok {
			continue
		}
		s, fits := resourceScore(st, task.Resreq.Get(name), node.Used.Get(name), node.Allocatable.Get(name))
		if !fits {
			return 0
		}
		score += s
		weightSum += st.weight
	}
	if weightSum > 0 {
		score /= float64(weightSum)
	}
	return score * maxNodeScore * float64(p.args.weight)
}

func (p *Plugin) strategyOf(name v1.ResourceName) (strategy, bool) {
	if st, ok := p.args.exact[name]; ok {
		return st, true
	}
	best, found := "", false
	var out strategy
	for prefix, st := range p.args.wildcards {
		if strings.HasPrefix(string(name), prefix) && (!found || len(prefix) > len(best)) {
			best, out, found = prefix, st, true
		}
	}
	return out, found
}

// podStrategy reads the pod's own strategy. With the type annotation and
// no readable weights the pod scores 0 everywhere, as in Volcano, and the
// fault is logged once per pod.
func podStrategy(task *api.TaskInfo) (string, map[v1.ResourceName]int, bool) {
	if task.Pod == nil {
		return "", nil, true
	}
	kind := task.Pod.Annotations[StrategyAnnotation]
	if kind == "" {
		return "", nil, true
	}
	raw := task.Pod.Annotations[StrategyWeightAnnotation]
	var weights map[v1.ResourceName]int
	err := json.Unmarshal([]byte(raw), &weights)
	switch {
	case raw == "":
		logonce.Warning(Name, fmt.Sprintf("pod %s has %s but no %s; it scores 0 on every node", task.Key(), StrategyAnnotation, StrategyWeightAnnotation))
		return "", nil, false
	case err != nil:
		logonce.Warning(Name, fmt.Sprintf("pod %s: %s is not a JSON object of resource weights (%v); it scores 0 on every node", task.Key(), StrategyWeightAnnotation, err))
		return "", nil, false
	}
	if kind != LeastAllocated && kind != MostAllocated {
		logonce.Warning(Name, fmt.Sprintf("pod %s: %s %q is neither %s nor %s; as in Volcano its resources count with score 0", task.Key(), StrategyAnnotation, kind, LeastAllocated, MostAllocated))
	}
	return kind, weights, true
}

// resourceScore is weight x the free (LeastAllocated) or used
// (MostAllocated) share of the resource once the request is added; false
// when the node would be over its allocatable. A resource the node has none
// of scores 0.
func resourceScore(st strategy, request, used, allocatable float64) (float64, bool) {
	if st.weight == 0 || allocatable == 0 {
		return 0, true
	}
	after := request + used
	if after > allocatable {
		return 0, false
	}
	switch st.kind {
	case MostAllocated:
		return after * float64(st.weight) / allocatable, true
	case LeastAllocated:
		return (allocatable - after) * float64(st.weight) / allocatable, true
	}
	return 0, true
}

// sraScore favours, for a task the node can hold in every resource it
// requests, nodes with fewer of the scarce resources: 1 less the weighted
// share of the listed resources the node has any of, scaled to
// [0, 100 x sra weight]. A node lacking a requested resource scores 0.
func (p *Plugin) sraScore(task *api.TaskInfo, node *api.NodeInfo) float64 {
	for _, name := range task.Resreq.ResourceNames() {
		if node.Allocatable.Get(name) == 0 {
			return 0
		}
	}
	s := p.args.sra
	score := 0.0
	for name, w := range s.resources {
		if node.Allocatable.Get(name) > 0 {
			score += float64(w)
		}
	}
	if s.weightSum > 0 {
		score = 1 - score/float64(s.weightSum)
	}
	if klog.V(5).Enabled() {
		klog.InfoS("sra score", "task", task.Key(), "node", node.Name, "score", score*maxNodeScore*float64(s.weight))
	}
	return score * maxNodeScore * float64(s.weight)
}
