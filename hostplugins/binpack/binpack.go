package binpack

import (
	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Name is the plugin's name in the scheduler configuration.
const Name = "binpack"

// Argument keys, as Volcano names them.
const (
	WeightKey          = "binpack.weight"
	CPUKey             = "binpack.cpu"
	MemoryKey          = "binpack.memory"
	ResourcesKey       = "binpack.resources"
	ResourcesKeyPrefix = ResourcesKey + "."
)

// maxNodeScore is kube-scheduler's framework.MaxNodeScore.
const maxNodeScore = 100

// minQuantity is the tolerance under which Volcano treats a requested
// quantity as absent when it lists a task's resource names.
const minQuantity = 0.1

// Weights are the plugin's parsed arguments.
type Weights struct {
	Binpack int
	CPU     int
	Memory  int
	// Scalars holds the weights of the listed extended resources.
	Scalars map[v1.ResourceName]int
}

// Plugin is the binpack plugin for one session.
type Plugin struct {
	w Weights
}

var (
	_ framework.Plugin     = &Plugin{}
	_ framework.NodeScorer = &Plugin{}
	_ framework.HookFilter = &Plugin{}
)

// New parses the arguments; a value of the wrong type is an error naming its key.
func New(args framework.Arguments) (framework.Plugin, error) {
	w, err := ParseWeights(args)
	if err != nil {
		return nil, err
	}
	return &Plugin{w: w}, nil
}

// ParseWeights reads the arguments with Volcano's defaults.
func ParseWeights(args framework.Arguments) (Weights, error) {
	w := Weights{Binpack: 1, CPU: 1, Memory: 1, Scalars: map[v1.ResourceName]int{}}
	if err := args.Int(WeightKey, &w.Binpack); err != nil {
		return w, err
	}
	if err := args.Int(CPUKey, &w.CPU); err != nil {
		return w, err
	}
	if w.CPU < 0 {
		w.CPU = 1
	}
	if err := args.Int(MemoryKey, &w.Memory); err != nil {
		return w, err
	}
	if w.Memory < 0 {
		w.Memory = 1
	}
	scalars, _, err := args.ResourceWeights(ResourcesKey, ResourcesKeyPrefix)
	if err != nil {
		return w, err
	}
	for name, weight := range scalars {
		w.Scalars[v1.ResourceName(name)] = weight
	}
	// binpack.cpu and binpack.memory win over cpu or memory in the list.
	delete(w.Scalars, v1.ResourceCPU)
	delete(w.Scalars, v1.ResourceMemory)
	return w, nil
}

// Name returns "binpack".
func (p *Plugin) Name() string { return Name }

// OnSessionOpen has nothing to prepare: the score reads the node as it is.
func (p *Plugin) OnSessionOpen(*framework.Session) {}

// OnSessionClose does nothing.
func (p *Plugin) OnSessionClose(*framework.Session) {}

// Offers withdraws the node-order hook when binpack.weight is 0, as Volcano
// then registers no scoring function at all.
func (p *Plugin) Offers(h framework.Hook) bool {
	return h != framework.HookNodeOrder || p.w.Binpack != 0
}

// NodeOrder returns the task's binpack score on the node.
func (p *Plugin) NodeOrder(task *api.TaskInfo, node *api.NodeInfo) (float64, error) {
	return Score(task.Resreq, node.Allocatable, node.Used, &p.w), nil
}

// Score is Volcano's BinPackingScore on plain resources.
func Score(request, allocatable, used *api.Resource, w *Weights) float64 {
	var sum float64
	weightSum := 0
	// dim adds one dimension and reports false when it would overflow.
	dim := func(req, capacity, inUse float64, weight int) bool {
		weightSum += weight
		if capacity == 0 || weight == 0 {
			return true
		}
		after := req + inUse
		if after > capacity {
			return false
		}
		sum += after * float64(weight) / capacity
		return true
	}
	if request.MilliCPU >= minQuantity {
		if !dim(request.MilliCPU, allocatable.MilliCPU, used.MilliCPU, w.CPU) {
			return 0
		}
	}
	if request.Memory >= minQuantity {
		if !dim(request.Memory, allocatable.Memory, used.Memory, w.Memory) {
			return 0
		}
	}
	if len(w.Scalars) > 0 {
		for name, q := range request.Scalars {
			if q < minQuantity {
				continue
			}
			weight, ok := w.Scalars[name]
			if !ok {
				continue
			}
			if !dim(q, allocatable.Scalars[name], used.Scalars[name], weight) {
				return 0
			}
		}
	}
	if weightSum > 0 {
		sum /= float64(weightSum)
	}
	return sum * float64(maxNodeScore*w.Binpack)
}
