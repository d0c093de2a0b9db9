package runtime

import (
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// The view's claim lists name each task's claims as kube does and say
// what the snapshot knows of them.
func TestViewClaimLists(t *testing.T) {
	local := "local"
	count := int32(25)
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "w-0"}, Spec: v1.PodSpec{
		Volumes: []v1.Volume{
			{Name: "token", VolumeSource: v1.VolumeSource{Projected: &v1.ProjectedVolumeSource{}}},
			{Name: "data", VolumeSource: v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: "data-w-0"}}},
			{Name: "scratch", VolumeSource: v1.VolumeSource{Ephemeral: &v1.EphemeralVolumeSource{}}},
		},
		ResourceClaims: []v1.PodResourceClaim{
			{Name: "gpu", ResourceClaimName: ptr("w-0-gpu")},
			{Name: "nic", ResourceClaimTemplateName: ptr("nic")},
			{Name: "later", ResourceClaimTemplateName: ptr("nic")},
		},
	}, Status: v1.PodStatus{ResourceClaimStatuses: []v1.PodResourceClaimStatus{{Name: "nic", ResourceClaimName: ptr("w-0-nic-x7")}}}}
	plain := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "plain"}}
	storage := &api.Storage{
		Claims: map[string]*v1.PersistentVolumeClaim{
			"ns/data-w-0": {ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "data-w-0",
				Annotations: map[string]string{"pv.kubernetes.io/bind-completed": "yes"}},
				Spec: v1.PersistentVolumeClaimSpec{VolumeName: "pv-3", StorageClassName: &local}},
			// Names its volume but the PV controller has not finished.
			"ns/w-0-scratch": {ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "w-0-scratch"},
				Spec: v1.PersistentVolumeClaimSpec{VolumeName: "pv-4"}},
		},
		CSINodes: map[string]*storagev1.CSINode{
			"n1": {Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{
				{Name: "ebs.csi.example.com", Allocatable: &storagev1.VolumeNodeResources{Count: &count}},
				{Name: "unlimited.example.com"},
			}}},
			"n0": {Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{{Name: "unlimited.example.com"}}}},
		},
	}
	devices := &api.Devices{Claims: []*resourcev1beta1.ResourceClaim{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "w-0-gpu"}, Status: resourcev1beta1.ResourceClaimStatus{
			Allocation: &resourcev1beta1.AllocationResult{Devices: resourcev1beta1.DeviceAllocationResult{Results: []resourcev1beta1.DeviceRequestAllocationResult{
				{Driver: "gpu.example.com", Pool: "n1", Device: "gpu-2"}}}}}},
	}}
	tasks := []*api.TaskInfo{{Pod: plain}, {Pod: pod}}
	got := wireTaskClaims(tasks, storage, devices)
	want := []abi.TaskClaims{{Task: 1,
		Volumes: []abi.VolumeClaim{{Name: "data-w-0", Volume: "pv-3", StorageClass: "local"}, {Name: "w-0-scratch"}},
		Devices: []abi.DeviceClaim{{Name: "w-0-gpu", Devices: []string{"gpu.example.com/n1/gpu-2"}}, {Name: "w-0-nic-x7"}},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("taskClaims\n got %+v\nwant %+v", got, want)
	}
	nodes := []*api.NodeInfo{{Name: "n0"}, {Name: "n1"}, {Name: "n2"}}
	limits := wireVolumeLimits(nodes, storage)
	if want := []abi.NodeVolumeLimits{{Node: 1, Limits: map[string]int32{"ebs.csi.example.com": 25}}}; !reflect.DeepEqual(limits, want) {
		t.Errorf("volumeLimits %+v, want %+v", limits, want)
	}
	if wireVolumeLimits(nodes, nil) != nil || wireTaskClaims(tasks[:1], storage, devices) != nil {
		t.Error("lists without entries are not empty")
	}
}

func ptr[T any](v T) *T { return &v }
