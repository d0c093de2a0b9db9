package simulator

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	k8stesting "k8s.io/client-go/testing"
	storagehelpers "k8s.io/component-helpers/storage/volume"
)

var (
	pvResource  = v1.SchemeGroupVersion.WithResource("persistentvolumes")
	pvcResource = v1.SchemeGroupVersion.WithResource("persistentvolumeclaims")
)

// defaultStorage gives a storage object of a cluster file what the API
// server's defaulting and the PV controller would have given it: a
// storage class binds Immediate unless it says otherwise; a volume
// without a phase is Available, or Bound when it names a claim; a claim
// that names its volume and gives no phase is Bound, with the
// bind-completed annotation the controller writes.
func defaultStorage(obj runtime.Object) error {
	switch o := obj.(type) {
	case *v1.PersistentVolumeClaim:
		defaultNamespace(o)
		if o.UID == "" {
			o.UID = types.UID(o.Namespace + "-pvc-" + o.Name)
		}
		if err := validateResources(o.Spec.Resources.Requests, "spec.resources.requests"); err != nil {
			return err
		}
		if o.Status.Phase == "" {
			o.Status.Phase = v1.ClaimPending
			if o.Spec.VolumeName != "" {
				o.Status.Phase = v1.ClaimBound
				metav1.SetMetaDataAnnotation(&o.ObjectMeta, storagehelpers.AnnBindCompleted, "yes")
			}
		}
	case *v1.PersistentVolume:
		if err := validateResources(o.Spec.Capacity, "spec.capacity"); err != nil {
			return err
		}
		if o.Status.Phase == "" {
			o.Status.Phase = v1.VolumeAvailable
			if o.Spec.ClaimRef != nil {
				o.Status.Phase = v1.VolumeBound
			}
		}
	case *storagev1.StorageClass:
		if o.VolumeBindingMode == nil {
			mode := storagev1.VolumeBindingImmediate
			o.VolumeBindingMode = &mode
		}
		switch *o.VolumeBindingMode {
		case storagev1.VolumeBindingImmediate, storagev1.VolumeBindingWaitForFirstConsumer:
		default:
			return fmt.Errorf("volumeBindingMode: expected Immediate or WaitForFirstConsumer, got %q", *o.VolumeBindingMode)
		}
	case *storagev1.CSIStorageCapacity:
		defaultNamespace(o)
	case *resourcev1beta1.ResourceClaim:
		defaultNamespace(o)
		if o.UID == "" {
			o.UID = types.UID(o.Namespace + "-claim-" + o.Name)
		}
	}
	return nil
}

// playVolumeControllers makes the embedded cluster answer the scheduler's
// volume writes as the PV controller and an external provisioner do: a
// volume given a claimRef is bound to its claim at once, and a claim given
// a selected node while no volume exists for it gets a new volume of its
// storage class (named pvc-<claim UID>, sized as requested, with the
// class's allowed topologies as node affinity) bound to it.
func (e *embedded) playVolumeControllers() {
	tracker := e.kube.Tracker()
	e.kube.PrependReactor("update", "persistentvolumes", func(a k8stesting.Action) (bool, runtime.Object, error) {
		upd, ok := a.(k8stesting.UpdateAction)
		if !ok || a.GetSubresource() != "" {
			return false, nil, nil
		}
		pv := upd.GetObject().(*v1.PersistentVolume).DeepCopy()
		if err := tracker.Update(pvResource, pv, ""); err != nil {
			return true, nil, err
		}
		if ref := pv.Spec.ClaimRef; ref != nil {
			if err := e.completeBinding(ref.Namespace, ref.Name, pv); err != nil {
				return true, nil, err
			}
		}
		return true, pv, nil
	})
	e.kube.PrependReactor("update", "persistentvolumeclaims", func(a k8stesting.Action) (bool, runtime.Object, error) {
		upd, ok := a.(k8stesting.UpdateAction)
		if !ok || a.GetSubresource() != "" {
			return false, nil, nil
		}
		pvc := upd.GetObject().(*v1.PersistentVolumeClaim).DeepCopy()
		if err := tracker.Update(pvcResource, pvc, pvc.Namespace); err != nil {
			return true, nil, err
		}
		if _, selected := pvc.Annotations[storagehelpers.AnnSelectedNode]; selected && pvc.Spec.VolumeName == "" {
			pv, err := e.provision(pvc)
			if err != nil {
				return true, nil, err
			}
			if err := e.completeBinding(pvc.Namespace, pvc.Name, pv); err != nil {
				return true, nil, err
			}
		}
		return true, pvc, nil
	})
}

// completeBinding binds a claim to the volume that names it, as the PV
// controller finishes a binding the scheduler started.
func (e *embedded) completeBinding(namespace, name string, pv *v1.PersistentVolume) error {
	tracker := e.kube.Tracker()
	obj, err := tracker.Get(pvcResource, namespace, name)
	if err != nil {
		return fmt.Errorf("volume %s names claim %s/%s: %w", pv.Name, namespace, name, err)
	}
	pvc := obj.(*v1.PersistentVolumeClaim).DeepCopy()
	pvc.Spec.VolumeName = pv.Name
	metav1.SetMetaDataAnnotation(&pvc.ObjectMeta, storagehelpers.AnnBindCompleted, "yes")
	metav1.SetMetaDataAnnotation(&pvc.ObjectMeta, storagehelpers.AnnBoundByController, "yes")
	pvc.Status.Phase = v1.ClaimBound
	pvc.Status.Capacity = pv.Spec.Capacity.DeepCopy()
	if err := tracker.Update(pvcResource, pvc, namespace); err != nil {
		return err
	}
	bound := pv.DeepCopy()
	bound.Spec.ClaimRef.UID = pvc.UID
	bound.Status.Phase = v1.VolumeBound
	return tracker.Update(pvResource, bound, "")
}

// provision creates the volume a provisioner would for a claim.
func (e *embedded) provision(pvc *v1.PersistentVolumeClaim) (*v1.PersistentVolume, error) {
	className := storagehelpers.GetPersistentVolumeClaimClass(pvc)
	pv := &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pvc-" + string(pvc.UID), CreationTimestamp: metav1.Now()},
		Spec: v1.PersistentVolumeSpec{
			Capacity:         v1.ResourceList{v1.ResourceStorage: pvc.Spec.Resources.Requests[v1.ResourceStorage]},
			AccessModes:      pvc.Spec.AccessModes,
			StorageClassName: className,
			VolumeMode:       pvc.Spec.VolumeMode,
			ClaimRef:         &v1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: pvc.Namespace, Name: pvc.Name, UID: pvc.UID},
		},
	}
	// Reactors run under the fake clientset's lock: objects are read from
	// its tracker, not through the clientset.
	obj, err := e.kube.Tracker().Get(storagev1.SchemeGroupVersion.WithResource("storageclasses"), "", className)
	if err != nil {
		return nil, fmt.Errorf("provisioning claim %s/%s: %w", pvc.Namespace, pvc.Name, err)
	}
	if class := obj.(*storagev1.StorageClass); len(class.AllowedTopologies) > 0 {
		pv.Spec.NodeAffinity = &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{}}
		for _, t := range class.AllowedTopologies {
			var term v1.NodeSelectorTerm
			for _, e := range t.MatchLabelExpressions {
				term.MatchExpressions = append(term.MatchExpressions, v1.NodeSelectorRequirement{Key: e.Key, Operator: v1.NodeSelectorOpIn, Values: e.Values})
			}
			pv.Spec.NodeAffinity.Required.NodeSelectorTerms = append(pv.Spec.NodeAffinity.Required.NodeSelectorTerms, term)
		}
	}
	pv.Status.Phase = v1.VolumeBound
	return pv, e.kube.Tracker().Add(pv)
}
