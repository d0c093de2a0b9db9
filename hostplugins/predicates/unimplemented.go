package predicates

import (
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
)

// claimsWarned makes the warning below once per process: it concerns the
// scheduler, not one session.
var claimsWarned sync.Once

// warnUnimplemented says, once, that a pending pod asks for what the
// dynamic-resource filter would check, which is not implemented: the pod
// is placed as if it asked for no device.
func (p *Plugin) warnUnimplemented(pod *v1.Pod) {
	if p.args.DynamicResourceAllocation && len(pod.Spec.ResourceClaims) > 0 {
		claimsWarned.Do(func() {
			klog.ErrorS(nil, "Dynamic resource allocation is not implemented; pods with ResourceClaims are placed without devices being allocated",
				"pod", klog.KObj(pod))
		})
	}
}
