package dra

// What Kubernetes 1.32 knew. The library is newer than the cluster, so this
// file narrows it back: the allocator runs with every optional feature off
// (1.32 had none of them on by default), claims that ask for a feature 1.32
// lacked are refused, and ResourceSlice fields added after 1.32 are removed
// before the allocator sees them, because a 1.32 scheduler decodes the
// objects into types without those fields and so never acts on them.

import (
	"fmt"

	resourcev1 "k8s.io/api/resource/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	"k8s.io/dynamic-resource-allocation/structured"
)

// features132 is the allocator feature set of kube-scheduler 1.32 with
// default feature gates: DRAAdminAccess and DRAResourceClaimDeviceStatus were
// alpha (off); prioritized lists, partitionable devices, device taints,
// binding conditions and consumable capacity did not exist yet. With all of
// them off the library picks its "stable" allocator.
var features132 = structured.Features{}

// refuseRequest explains why kube 1.32 cannot allocate a request, or returns
// "" when it can. Ignoring such a field would allocate something other than
// what the claim asks for, so the claim is refused instead.
func refuseRequest(r *resourcev1beta1.DeviceRequest) string {
	switch {
	case len(r.FirstAvailable) > 0:
		return fmt.Sprintf("request %s: firstAvailable (DRAPrioritizedList) is not supported by Kubernetes 1.32 DRA scheduling", r.Name)
	case r.AdminAccess != nil:
		// 1.32's allocator rejects the field whenever it is set, true or false.
		return fmt.Sprintf("request %s: adminAccess needs the DRAAdminAccess feature, which is off by default in Kubernetes 1.32", r.Name)
	case len(r.Tolerations) > 0:
		return fmt.Sprintf("request %s: tolerations (DRADeviceTaints) are not supported by Kubernetes 1.32 DRA scheduling", r.Name)
	case r.Capacity != nil:
		return fmt.Sprintf("request %s: capacity requests (DRAConsumableCapacity) are not supported by Kubernetes 1.32 DRA scheduling", r.Name)
	}
	return ""
}

// defaultRequests applies the API server's defaults for exact requests
// (mode ExactCount, count 1). Objects read from a cluster already have them;
// hand-written simulator inputs may not, and the allocator rejects an empty
// mode.
func defaultRequests(claim *resourcev1.ResourceClaim) {
	for i := range claim.Spec.Devices.Requests {
		e := claim.Spec.Devices.Requests[i].Exactly
		if e == nil {
			continue
		}
		if e.AllocationMode == "" {
			e.AllocationMode = resourcev1.DeviceAllocationModeExactCount
		}
		if e.AllocationMode == resourcev1.DeviceAllocationModeExactCount && e.Count == 0 {
			e.Count = 1
		}
	}
}

// narrowSlice returns the slice as a 1.32 scheduler would see it, in v1
// form: devices without Basic (a device type 1.32 did not know and never
// selected) are dropped, and fields added in 1.33 or later are cleared.
func narrowSlice(in *resourcev1beta1.ResourceSlice) *resourcev1.ResourceSlice {
	devices := make([]resourcev1beta1.Device, 0, len(in.Spec.Devices))
	for _, d := range in.Spec.Devices {
		if d.Basic != nil {
			devices = append(devices, d)
		}
	}
	tmp := *in
	tmp.Spec.Devices = devices
	out := sliceToV1(&tmp)
	out.Spec.PerDeviceNodeSelection = nil
	out.Spec.SharedCounters = nil
	for i := range out.Spec.Devices {
		d := &out.Spec.Devices[i]
		d.ConsumesCounters = nil
		d.NodeName = nil
		d.NodeSelector = nil
		d.AllNodes = nil
		d.Taints = nil
		d.BindsToNode = nil
		d.BindingConditions = nil
		d.BindingFailureConditions = nil
		d.AllowMultipleAllocations = nil
		for name, c := range d.Capacity {
			c.RequestPolicy = nil
			d.Capacity[name] = c
		}
	}
	return out
}
