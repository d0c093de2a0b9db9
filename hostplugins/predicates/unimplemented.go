package predicates

import (
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
)

// volumesWarned and claimsWarned make the warnings below once per process:
// they concern the scheduler, not one session.
var volumesWarned, claimsWarned sync.Once

// warnUnimplemented says, once, that a pending pod asks for what the
// volume and dynamic-resource filters would check, which are not
// implemented: the pod is placed as if it asked for none.
func (p *Plugin) warnUnimplemented(pod *v1.Pod) {
	if p.args.VolumeBinding || p.args.VolumeZone || p.args.NodeVolumeLimits {
		for i := range pod.Spec.Volumes {
			if v := &pod.Spec.Volumes[i]; v.PersistentVolumeClaim != nil || v.Ephemeral != nil {
				volumesWarned.Do(func() {
					klog.ErrorS(nil, "Volume binding, volume zone and CSI volume limits are not implemented; pods with PersistentVolumeClaims are placed as if they had none",
						"pod", klog.KObj(pod))
				})
				break
			}
		}
	}
	if p.args.DynamicResourceAllocation && len(pod.Spec.ResourceClaims) > 0 {
		claimsWarned.Do(func() {
			klog.ErrorS(nil, "Dynamic resource allocation is not implemented; pods with ResourceClaims are placed without devices being allocated",
				"pod", klog.KObj(pod))
		})
	}
}
