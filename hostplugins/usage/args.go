package usage

import (
	"fmt"

	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Argument keys, as Volcano names them.
const (
	WeightKey       = "usage.weight"
	CPUWeightKey    = "cpu.weight"
	MemoryWeightKey = "memory.weight"
	ThresholdsKey   = "thresholds"
	// The keys within thresholds.
	CPUThresholdKey    = "cpu"
	MemoryThresholdKey = "mem"
)

// args are the plugin's parsed arguments with Volcano's defaults.
type args struct {
	// weight scales the score (5); cpuWeight and memoryWeight (1 each)
	// weigh the two resources' free shares in it.
	weight, cpuWeight, memoryWeight int
	// cpuThreshold and memoryThreshold (80 each) are the percentages of
	// use above which a node takes no more tasks.
	cpuThreshold, memoryThreshold int
}

func parseArgs(a framework.Arguments) (args, error) {
	out := args{weight: 5, cpuWeight: 1, memoryWeight: 1, cpuThreshold: 80, memoryThreshold: 80}
	for _, err := range []error{a.Int(WeightKey, &out.weight), a.Int(CPUWeightKey, &out.cpuWeight), a.Int(MemoryWeightKey, &out.memoryWeight)} {
		if err != nil {
			return out, err
		}
	}
	if err := parseThresholds(a, &out); err != nil {
		return out, err
	}
	if err := a.RejectUnknown(WeightKey, CPUWeightKey, MemoryWeightKey, ThresholdsKey); err != nil {
		return out, err
	}
	// Volcano divides by this sum: at 0 its scores are NaN or infinite.
	if out.cpuWeight+out.memoryWeight == 0 {
		return out, fmt.Errorf("arguments %q and %q: their sum is the score's divisor and must not be 0, got %d and %d",
			CPUWeightKey, MemoryWeightKey, out.cpuWeight, out.memoryWeight)
	}
	return out, nil
}

// parseThresholds reads thresholds: {cpu, mem}, whole percentages. Volcano
// reads only integers there and takes anything else (80.5, "80") as 0,
// which would shut every measured node; Caldera refuses them, and the
// keys it does not know, which Volcano ignores.
func parseThresholds(a framework.Arguments, out *args) error {
	v, ok := a[ThresholdsKey]
	if !ok || v == nil {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("argument %q: expected a mapping such as {cpu: 80, mem: 80}, got %T %v", ThresholdsKey, v, v)
	}
	t := framework.Arguments{}
	for k, x := range m {
		t[ThresholdsKey+"."+k] = x
	}
	for _, th := range []struct {
		key string
		dst *int
	}{{CPUThresholdKey, &out.cpuThreshold}, {MemoryThresholdKey, &out.memoryThreshold}} {
		key, dst := ThresholdsKey+"."+th.key, th.dst
		if x := t[key]; x != nil {
			if _, isInt := x.(int); !isInt {
				return fmt.Errorf("argument %q: expected a whole percentage such as 80, got %T %v", key, x, x)
			}
		}
		if err := t.Int(key, dst); err != nil {
			return err
		}
	}
	return t.RejectUnknown(ThresholdsKey+"."+CPUThresholdKey, ThresholdsKey+"."+MemoryThresholdKey)
}
