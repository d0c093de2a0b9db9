package api

import (
	"time"

	v1 "k8s.io/api/core/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	storagev1 "k8s.io/api/storage/v1"
)

// Storage is what the volume filters read of the cluster's storage
// objects, as a session opens. The objects are shared with the cache and
// must not be mutated. Claims and volumes include what earlier sessions
// decided and the API server has not shown yet (a volume bound to a claim,
// a claim given a node to provision on).
type Storage struct {
	// Claims are PersistentVolumeClaims by "namespace/name".
	Claims map[string]*v1.PersistentVolumeClaim
	// Volumes are PersistentVolumes by name.
	Volumes     map[string]*v1.PersistentVolume
	Classes     map[string]*storagev1.StorageClass
	CSINodes    map[string]*storagev1.CSINode
	CSIDrivers  map[string]*storagev1.CSIDriver
	Capacities  []*storagev1.CSIStorageCapacity
	Attachments []*storagev1.VolumeAttachment
	// CapacityTracked says CSIDrivers and Capacities were read: only then
	// is a claim to provision checked against the capacity its driver
	// publishes (vc-scheduler's --csi-storage).
	CapacityTracked bool
}

// VolumeBinding is what a session decided for a pod's unbound
// PersistentVolumeClaims on the node it chose, as kube-scheduler's
// VolumeBinding plugin assumes it at Reserve: static volumes to bind
// (each the volume with its claimRef already set) and claims to provision
// (each with its selected-node annotation already set). The binder writes
// them before it binds the pod. Never mutated once set.
type VolumeBinding struct {
	Static    []StaticBinding
	Provision []*v1.PersistentVolumeClaim
	// Timeout bounds the bind's wait for the PV controller
	// (volumebinding.bindTimeoutSeconds); zero is the default.
	Timeout time.Duration
}

// StaticBinding is one existing volume chosen for one claim.
type StaticBinding struct {
	Volume *v1.PersistentVolume
	Claim  *v1.PersistentVolumeClaim
}

// Empty reports whether there is nothing to write.
func (b *VolumeBinding) Empty() bool {
	return b == nil || len(b.Static) == 0 && len(b.Provision) == 0
}

// Devices are the resource.k8s.io/v1beta1 objects the dynamic resource
// allocation filter reads, as a session opens: claims (with what earlier
// sessions allocated and the API server has not shown yet), the devices
// drivers publish in ResourceSlices, and DeviceClasses. Shared, never
// mutated.
type Devices struct {
	Claims  []*resourcev1beta1.ResourceClaim
	Slices  []*resourcev1beta1.ResourceSlice
	Classes []*resourcev1beta1.DeviceClass
}
