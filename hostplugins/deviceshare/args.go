package deviceshare

import (
	"fmt"

	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Argument keys, as Volcano names them.
const (
	GPUSharingKey      = "deviceshare.GPUSharingEnable"
	GPUNumberKey       = "deviceshare.GPUNumberEnable"
	NodeLockKey        = "deviceshare.NodeLockEnable"
	VGPUKey            = "deviceshare.VGPUEnable"
	MindClusterVNPUKey = "deviceshare.AscendMindClusterVNPUEnable"
	HAMiVNPUKey        = "deviceshare.AscendHAMiVNPUEnable"
	SchedulePolicyKey  = "deviceshare.SchedulePolicy"
	ScheduleWeightKey  = "deviceshare.ScheduleWeight"
	GeometriesNameKey  = "deviceshare.KnownGeometriesCMName"
	GeometriesNSKey    = "deviceshare.KnownGeometriesCMNamespace"
	ExclusiveRulesKey  = "deviceshare.GPUExclusiveRules"
)

// args are the plugin's parsed arguments.
type args struct {
	sharing, number bool
	// policy and weight score vGPU and vNPU devices in Volcano; GPU
	// sharing and GPU numbers score 0 whatever they are.
	policy string
	weight int
}

// notImplemented are the device kinds and options Caldera refuses when
// switched on, each with what it concerns.
var notImplemented = []struct{ key, what string }{
	{NodeLockKey, "the node lock the GPU device plugin reads"},
	{VGPUKey, "vGPU sharing (HAMi)"},
	{MindClusterVNPUKey, "Ascend 310P vNPU (MindCluster)"},
	{HAMiVNPUKey, "Ascend vNPU (HAMi)"},
}

func parseArgs(a framework.Arguments) (args, error) {
	var out args
	if err := a.Bool(GPUSharingKey, &out.sharing); err != nil {
		return out, err
	}
	if err := a.Bool(GPUNumberKey, &out.number); err != nil {
		return out, err
	}
	if out.sharing && out.number {
		// Volcano stops the scheduler for it.
		return out, fmt.Errorf("%s and %s cannot both be true", GPUSharingKey, GPUNumberKey)
	}
	for _, n := range notImplemented {
		on := false
		if err := a.Bool(n.key, &on); err != nil {
			return out, err
		}
		if on {
			return out, fmt.Errorf("%s: %s is not implemented in Caldera (README, \"Volcano's plugins and actions\")", n.key, n.what)
		}
	}
	if _, ok := a[ExclusiveRulesKey]; ok {
		return out, fmt.Errorf("%s: exclusive vGPU rules are not implemented in Caldera (README, \"Volcano's plugins and actions\")", ExclusiveRulesKey)
	}
	if err := a.String(SchedulePolicyKey, &out.policy); err != nil {
		return out, err
	}
	switch out.policy {
	case "", "binpack", "spread":
	default:
		return out, fmt.Errorf("argument %q: %q is neither binpack nor spread", SchedulePolicyKey, out.policy)
	}
	if err := a.Int(ScheduleWeightKey, &out.weight); err != nil {
		return out, err
	}
	// The vGPU geometry ConfigMap: read for vGPU and HAMi vNPU only, which
	// are refused above; accepted so that Volcano's configurations load.
	var ignored string
	for _, k := range []string{GeometriesNameKey, GeometriesNSKey} {
		if err := a.String(k, &ignored); err != nil {
			return out, err
		}
	}
	return out, a.RejectUnknown(GPUSharingKey, GPUNumberKey, NodeLockKey, VGPUKey, MindClusterVNPUKey, HAMiVNPUKey,
		SchedulePolicyKey, ScheduleWeightKey, GeometriesNameKey, GeometriesNSKey, ExclusiveRulesKey)
}
