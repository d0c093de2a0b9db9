package volumes

import (
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	storagehelpers "k8s.io/component-helpers/storage/volume"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// The fixtures restate those of kube-scheduler v1.32's volumebinding
// binder tests: node1 and node2 told apart by the label nodeKey, a
// WaitForFirstConsumer class without a provisioner (waitClass), one with
// a provisioner limited to node1's topology (waitClassWithProvisioner),
// one whose topology no node has (topoMismatchClass) and an Immediate one.
const (
	nodeKey        = "nodeKey"
	waitClass      = "waitClass"
	provClass      = "waitClassWithProvisioner"
	topoClass      = "topoMismatchClass"
	immediateClass = "immediateClass"
	testNS         = "testns"
	provisioner    = "test-provisioner"
)

func testNode(name string) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{nodeKey: name}}}
}

func testClasses() map[string]*storagev1.StorageClass {
	wait, immediate := storagev1.VolumeBindingWaitForFirstConsumer, storagev1.VolumeBindingImmediate
	topo := func(values ...string) []v1.TopologySelectorTerm {
		return []v1.TopologySelectorTerm{{MatchLabelExpressions: []v1.TopologySelectorLabelRequirement{{Key: nodeKey, Values: values}}}}
	}
	return map[string]*storagev1.StorageClass{
		waitClass:      {ObjectMeta: metav1.ObjectMeta{Name: waitClass}, VolumeBindingMode: &wait, Provisioner: "kubernetes.io/no-provisioner"},
		provClass:      {ObjectMeta: metav1.ObjectMeta{Name: provClass}, VolumeBindingMode: &wait, Provisioner: provisioner, AllowedTopologies: topo("node1", "reference-value")},
		topoClass:      {ObjectMeta: metav1.ObjectMeta{Name: topoClass}, VolumeBindingMode: &wait, Provisioner: provisioner, AllowedTopologies: topo("reference-value")},
		immediateClass: {ObjectMeta: metav1.ObjectMeta{Name: immediateClass}, VolumeBindingMode: &immediate},
	}
}

// claim makes a claim of class asking for size; a volume name makes it
// bound (with the bind-completed annotation) unless prebound is set.
func claim(name, size, class, volume string) *v1.PersistentVolumeClaim {
	c := &v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNS, UID: types.UID("pvc-uid-" + name), ResourceVersion: "1"},
		Spec: v1.PersistentVolumeClaimSpec{
			StorageClassName: &class,
			Resources:        v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceStorage: resource.MustParse(size)}},
			VolumeName:       volume,
		},
	}
	if volume != "" {
		metav1.SetMetaDataAnnotation(&c.ObjectMeta, storagehelpers.AnnBindCompleted, "yes")
		c.Status.Phase = v1.ClaimBound
	}
	return c
}

func prebound(c *v1.PersistentVolumeClaim) *v1.PersistentVolumeClaim {
	c = c.DeepCopy()
	delete(c.Annotations, storagehelpers.AnnBindCompleted)
	c.Status.Phase = v1.ClaimPending
	return c
}

func selectedNode(c *v1.PersistentVolumeClaim, node string) *v1.PersistentVolumeClaim {
	c = c.DeepCopy()
	metav1.SetMetaDataAnnotation(&c.ObjectMeta, storagehelpers.AnnSelectedNode, node)
	return c
}

// volume makes a local-style volume on one node; a claim makes it bound.
func volume(name, node, size, class string, boundTo *v1.PersistentVolumeClaim) *v1.PersistentVolume {
	pv := &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: "1"},
		Spec: v1.PersistentVolumeSpec{
			Capacity:         v1.ResourceList{v1.ResourceStorage: resource.MustParse(size)},
			StorageClassName: class,
			NodeAffinity: &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
				MatchExpressions: []v1.NodeSelectorRequirement{{Key: nodeKey, Operator: v1.NodeSelectorOpIn, Values: []string{node}}},
			}}}},
		},
		Status: v1.PersistentVolumeStatus{Phase: v1.VolumeAvailable},
	}
	if boundTo != nil {
		pv.Spec.ClaimRef = &v1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: boundTo.Namespace, Name: boundTo.Name, UID: boundTo.UID}
		pv.Status.Phase = v1.VolumeBound
	}
	return pv
}

func podWithClaims(claims ...*v1.PersistentVolumeClaim) *v1.Pod {
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "test-pod", Namespace: testNS, UID: "pod-uid"}}
	for _, c := range claims {
		pod.Spec.Volumes = append(pod.Spec.Volumes, v1.Volume{Name: c.Name,
			VolumeSource: v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: c.Name}}})
	}
	return pod
}

func storageOf(claims []*v1.PersistentVolumeClaim, volumes []*v1.PersistentVolume) *api.Storage {
	st := &api.Storage{Claims: map[string]*v1.PersistentVolumeClaim{}, Volumes: map[string]*v1.PersistentVolume{},
		Classes: testClasses(), CSINodes: map[string]*storagev1.CSINode{}, CSIDrivers: map[string]*storagev1.CSIDriver{}}
	for _, c := range claims {
		st.Claims[c.Namespace+"/"+c.Name] = c
	}
	for _, pv := range volumes {
		st.Volumes[pv.Name] = pv
	}
	return st
}
