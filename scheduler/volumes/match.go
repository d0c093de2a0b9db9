package volumes

import (
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	storagehelpers "k8s.io/component-helpers/storage/volume"
	"k8s.io/utils/ptr"
)

// matchVolume picks the volume an unbound claim takes on a node, with the
// outcome of the volume helpers' FindMatchingVolume in the scheduler's
// path (VolumeAttributesClass off, as in kube-scheduler v1.32), without
// re-reading every volume's node affinity for every pod and node:
//
//   - a volume of the claim's class already naming the claim (pre-bound)
//     that passes the size, mode, attributes-class and deletion checks is
//     the answer when its node affinity admits the node, and there is no
//     answer when it does not;
//   - otherwise the smallest Available volume of the class that the node
//     admits, that no other claim names, that the claim's selector and
//     access modes accept and that is not excluded (chosen for another
//     claim of the pod); the first in name order among equals.
func (s *Session) matchVolume(claim *v1.PersistentVolumeClaim, node *v1.Node, excluded map[string]bool) (*v1.PersistentVolume, error) {
	if ptr.Deref(claim.Spec.VolumeAttributesClassName, "") != "" {
		return nil, fmt.Errorf("unsupported volumeAttributesClassName is set on claim %s when the feature-gate VolumeAttributesClass is disabled", claim.Namespace+"/"+claim.Name)
	}
	class := storagehelpers.GetPersistentVolumeClaimClass(claim)
	requested := claim.Spec.Resources.Requests[v1.ResourceStorage]
	for _, pv := range s.preboundTo(claim, class) {
		if excluded[pv.Name] || !usable(pv, claim, requested) {
			continue
		}
		if storagehelpers.CheckNodeAffinity(pv, node.Labels) != nil {
			return nil, nil
		}
		return pv, nil
	}
	var selector labels.Selector
	if claim.Spec.Selector != nil {
		sel, err := metav1.LabelSelectorAsSelector(claim.Spec.Selector)
		if err != nil {
			return nil, fmt.Errorf("error creating internal label selector for claim: %v: %v", claim.Namespace+"/"+claim.Name, err)
		}
		selector = sel
	}
	var best *v1.PersistentVolume
	var bestSize resource.Quantity
	for _, pv := range s.volumesOfClassOn(class, node) {
		if excluded[pv.Name] || pv.Spec.ClaimRef != nil || !usable(pv, claim, requested) {
			continue
		}
		if pv.Status.Phase != v1.VolumeAvailable || (selector != nil && !selector.Matches(labels.Set(pv.Labels))) {
			continue
		}
		if !storagehelpers.CheckAccessModes(claim, pv) {
			continue
		}
		size := pv.Spec.Capacity[v1.ResourceStorage]
		if best == nil || bestSize.Cmp(size) > 0 {
			best, bestSize = pv, size
		}
	}
	return best, nil
}

// usable applies the checks every candidate passes first: room for the
// request, the same volume mode, no attributes class, not being deleted.
func usable(pv *v1.PersistentVolume, claim *v1.PersistentVolumeClaim, requested resource.Quantity) bool {
	size := pv.Spec.Capacity[v1.ResourceStorage]
	return size.Cmp(requested) >= 0 &&
		!storagehelpers.CheckVolumeModeMismatches(&claim.Spec, &pv.Spec) &&
		ptr.Deref(pv.Spec.VolumeAttributesClassName, "") == "" &&
		pv.DeletionTimestamp == nil
}

// preboundTo lists, in name order, the volumes of the class whose
// claimRef names the claim, as the session sees them.
func (s *Session) preboundTo(claim *v1.PersistentVolumeClaim, class string) []*v1.PersistentVolume {
	s.classIndex.Do(s.indexClasses)
	key := claim.Namespace + "/" + claim.Name
	s.mu.RLock()
	reserved := s.reservedFor[key]
	s.mu.RUnlock()
	if len(reserved) == 0 && len(s.claimRefs[key]) == 0 {
		return nil
	}
	names := slices.Concat(s.claimRefs[key], reserved)
	slices.Sort(names)
	names = slices.Compact(names)
	var out []*v1.PersistentVolume
	for _, n := range names {
		pv := s.volume(n)
		if pv != nil && storagehelpers.GetPersistentVolumeClass(pv) == class && storagehelpers.IsVolumeBoundToClaim(pv, claim) {
			out = append(out, pv)
		}
	}
	return out
}
