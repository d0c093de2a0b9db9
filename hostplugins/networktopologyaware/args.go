package networktopologyaware

import (
	"fmt"

	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Argument keys, as Volcano names them.
const (
	WeightKey           = "weight"
	BinpackCPUKey       = "hypernode.binpack.cpu"
	BinpackMemoryKey    = "hypernode.binpack.memory"
	BinpackResourcesKey = "hypernode.binpack.resources"
	binpackResourcePfx  = BinpackResourcesKey + "."
	NormalPodEnableKey  = "hypernode.binpack.normal-pod.enable"
	NormalPodFadingKey  = "hypernode.binpack.normal-pod.fading"
	EvictMaxKey         = "hypernode.gradient.evict.max-hypernodes"
)

// args are the plugin's parsed arguments with Volcano's defaults: weights
// 1, normal pods packed by hypernode with a fading of 0.8 per tier, and at
// most 8 hypernodes offered for eviction. A negative weight or fading
// counts as the default, as in Volcano.
type args struct {
	weight        int
	cpu, memory   int
	scalars       map[v1.ResourceName]int
	normalPods    bool
	fading        float64
	evictMaxNodes int
}

func parseArgs(a framework.Arguments) (args, error) {
	out := args{weight: 1, cpu: 1, memory: 1, scalars: map[v1.ResourceName]int{}, normalPods: true, fading: 0.8, evictMaxNodes: 8}
	for key, dst := range map[string]*int{WeightKey: &out.weight, BinpackCPUKey: &out.cpu, BinpackMemoryKey: &out.memory, EvictMaxKey: &out.evictMaxNodes} {
		if err := a.Int(key, dst); err != nil {
			return out, err
		}
	}
	for _, p := range []*int{&out.weight, &out.cpu, &out.memory} {
		if *p < 0 {
			*p = 1
		}
	}
	if out.evictMaxNodes <= 0 {
		out.evictMaxNodes = 8
	}
	if err := a.Bool(NormalPodEnableKey, &out.normalPods); err != nil {
		return out, err
	}
	if err := a.Float64(NormalPodFadingKey, &out.fading); err != nil {
		return out, err
	}
	if out.fading < 0 {
		out.fading = 0.8
	}
	scalars, weightKeys, err := a.ResourceWeights(BinpackResourcesKey, binpackResourcePfx)
	if err != nil {
		return out, err
	}
	for name, w := range scalars {
		out.scalars[v1.ResourceName(name)] = w
	}
	known := append([]string{WeightKey, BinpackCPUKey, BinpackMemoryKey, BinpackResourcesKey, NormalPodEnableKey, NormalPodFadingKey, EvictMaxKey}, weightKeys...)
	if unknown := a.Unknown(known...); len(unknown) > 0 {
		return out, fmt.Errorf("unknown arguments %q (a %sNAME weight needs NAME listed in %s)", unknown, binpackResourcePfx, BinpackResourcesKey)
	}
	return out, nil
}

// binpackWeight is the weight of a resource in hypernode binpacking, and
// whether it counts at all.
func (a args) binpackWeight(name v1.ResourceName) (int, bool) {
	switch name {
	case v1.ResourceCPU:
		return a.cpu, true
	case v1.ResourceMemory:
		return a.memory, true
	}
	w, ok := a.scalars[name]
	return w, ok
}
