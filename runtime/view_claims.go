package runtime

import (
	"github.com/vmihailenco/msgpack/v5"
	v1 "k8s.io/api/core/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	"k8s.io/component-helpers/storage/ephemeral"
	"k8s.io/dynamic-resource-allocation/resourceclaim"

	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/dra"
	"github.com/caldera-scheduler/caldera/scheduler/volumes"
)

// wireTaskClaims is View.taskClaims (1.10): the claims of each task that
// uses any, in task handle order, as the session's snapshot has them.
func wireTaskClaims(tasks []*api.TaskInfo, storage *api.Storage, devices *api.Devices) []abi.TaskClaims {
	var byKey map[string]*resourcev1beta1.ResourceClaim
	var out []abi.TaskClaims
	for i, t := range tasks {
		if t.Pod == nil || (len(t.Pod.Spec.Volumes) == 0 && len(t.Pod.Spec.ResourceClaims) == 0) {
			continue
		}
		tc := abi.TaskClaims{Task: int32(i), Volumes: volumeClaims(t.Pod, storage)}
		if len(t.Pod.Spec.ResourceClaims) > 0 {
			if byKey == nil {
				byKey = claimsByKey(devices)
			}
			tc.Devices = deviceClaims(t.Pod, byKey)
		}
		if len(tc.Volumes) > 0 || len(tc.Devices) > 0 {
			out = append(out, tc)
		}
	}
	return out
}

func volumeClaims(pod *v1.Pod, storage *api.Storage) []abi.VolumeClaim {
	var out []abi.VolumeClaim
	for i := range pod.Spec.Volumes {
		vol := &pod.Spec.Volumes[i]
		var name string
		switch {
		case vol.PersistentVolumeClaim != nil:
			name = vol.PersistentVolumeClaim.ClaimName
		case vol.Ephemeral != nil:
			name = ephemeral.VolumeClaimName(pod, vol)
		default:
			continue
		}
		vc := abi.VolumeClaim{Name: name}
		if storage != nil {
			if c := storage.Claims[pod.Namespace+"/"+name]; c != nil {
				if volumes.FullyBound(c) {
					vc.Volume = c.Spec.VolumeName
				}
				if c.Spec.StorageClassName != nil {
					vc.StorageClass = *c.Spec.StorageClassName
				}
			}
		}
		out = append(out, vc)
	}
	return out
}

func claimsByKey(devices *api.Devices) map[string]*resourcev1beta1.ResourceClaim {
	m := map[string]*resourcev1beta1.ResourceClaim{}
	if devices == nil {
		return m
	}
	for _, c := range devices.Claims {
		if c != nil {
			m[c.Namespace+"/"+c.Name] = c
		}
	}
	return m
}

// deviceClaims names the pod's ResourceClaims as kube does (a template's
// claim by the name the pod's status records), leaving out an entry whose
// claim is not made yet.
func deviceClaims(pod *v1.Pod, byKey map[string]*resourcev1beta1.ResourceClaim) []abi.DeviceClaim {
	var out []abi.DeviceClaim
	for i := range pod.Spec.ResourceClaims {
		name, _, err := resourceclaim.Name(pod, &pod.Spec.ResourceClaims[i])
		if err != nil || name == nil {
			continue
		}
		dc := abi.DeviceClaim{Name: *name}
		if c := byKey[pod.Namespace+"/"+*name]; c != nil {
			dc.Devices = dra.DeviceNames(c.Status.Allocation)
		}
		out = append(out, dc)
	}
	return out
}

// wireVolumeLimits is View.volumeLimits (1.10): each node's CSI attach
// limits by driver, from its CSINode, in node handle order.
func wireVolumeLimits(nodes []*api.NodeInfo, storage *api.Storage) []abi.NodeVolumeLimits {
	if storage == nil || len(storage.CSINodes) == 0 {
		return nil
	}
	var out []abi.NodeVolumeLimits
	for i, n := range nodes {
		csi := storage.CSINodes[n.Name]
		if csi == nil {
			continue
		}
		limits := map[string]int32{}
		for _, d := range csi.Spec.Drivers {
			if d.Allocatable != nil && d.Allocatable.Count != nil {
				limits[d.Name] = *d.Allocatable.Count
			}
		}
		if len(limits) > 0 {
			out = append(out, abi.NodeVolumeLimits{Node: int32(i), Limits: limits})
		}
	}
	return out
}

// encodeClaimLists encodes View.taskClaims and View.volumeLimits once per
// session; nil for an empty list, which leaves the field out.
func encodeClaimLists(tcs []abi.TaskClaims, limits []abi.NodeVolumeLimits) (msgpack.RawMessage, msgpack.RawMessage) {
	var a, b msgpack.RawMessage
	if len(tcs) > 0 {
		a, _ = marshalSorted(tcs)
	}
	if len(limits) > 0 {
		b, _ = marshalSorted(limits)
	}
	return a, b
}
