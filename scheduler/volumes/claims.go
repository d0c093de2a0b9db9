package volumes

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/storage/ephemeral"
	storagehelpers "k8s.io/component-helpers/storage/volume"
)

// Checks says which of the three checks the configuration turns on.
type Checks struct {
	Binding, Zone, Limits bool
}

// PodClaims is what PreFilter found of one pod's claims, for the filters
// that follow on every node.
type PodClaims struct {
	pod *v1.Pod
	// bound are the pod's claims bound to a volume; delayed its unbound
	// WaitForFirstConsumer claims. Both nil when VolumeBinding has nothing
	// to check.
	bound, delayed []*v1.PersistentVolumeClaim
	binding        bool
	// zones are the zone and region labels of the pod's bound volumes;
	// nil when VolumeZone has nothing to check. zoneErr is why they could
	// not be read, which Volcano reports from the filter, on every node
	// (it runs VolumeZone without its PreFilter).
	zones   []volumeTopology
	zoneErr *Rejection
	// limits says NodeVolumeLimits counts this pod's volumes; limitsErr
	// is a fault of the pod's own volumes it reports on every node.
	limits    bool
	limitsErr *limitsError
}

// Binds reports whether the pod has claims VolumeBinding decides on.
func (pc *PodClaims) Binds() bool { return pc != nil && pc.binding }

// PreFilter reads the pod's claims once for all nodes. Only VolumeBinding
// rejects here: Volcano runs NodeVolumeLimits and VolumeZone without their
// PreFilter, so what those find wrong with the pod's own claims is
// reported by their filters, on every node. A nil PodClaims with a nil
// Rejection means the pod has nothing these checks look at.
func (s *Session) PreFilter(pod *v1.Pod, on Checks) (*PodClaims, *Rejection) {
	if len(pod.Spec.Volumes) == 0 {
		return nil, nil
	}
	pc := &PodClaims{pod: pod}
	if on.Limits {
		pc.limits = s.countsForLimits(pod, pc)
	}
	if on.Zone {
		pc.zones, pc.zoneErr = s.podVolumeTopologies(pod)
	}
	if on.Binding {
		if r := s.sortClaims(pod, pc); r != nil {
			return nil, r
		}
	}
	if !pc.limits && pc.zones == nil && pc.zoneErr == nil && !pc.binding {
		return nil, nil
	}
	return pc, nil
}

// claimName returns the claim a volume uses, whether it is a generic
// ephemeral volume's, and whether the volume uses a claim at all.
func claimName(pod *v1.Pod, vol *v1.Volume) (name string, isEphemeral, ok bool) {
	switch {
	case vol.PersistentVolumeClaim != nil:
		return vol.PersistentVolumeClaim.ClaimName, false, true
	case vol.Ephemeral != nil:
		return ephemeral.VolumeClaimName(pod, vol), true, true
	}
	return "", false, false
}

// sortClaims is VolumeBinding's PreFilter: every claim must exist, not be
// lost or being deleted, and (for an ephemeral volume) belong to the pod;
// bound claims are checked on each node, unbound WaitForFirstConsumer ones
// are matched there, and an unbound claim of any other kind keeps the pod
// pending.
func (s *Session) sortClaims(pod *v1.Pod, pc *PodClaims) *Rejection {
	var claims []*v1.PersistentVolumeClaim
	for i := range pod.Spec.Volumes {
		name, isEphemeral, ok := claimName(pod, &pod.Spec.Volumes[i])
		if !ok {
			continue
		}
		c := s.claim(pod.Namespace, name)
		if c == nil {
			if isEphemeral {
				return reject(VolumeBindingName, Unresolvable, fmt.Sprintf("waiting for ephemeral volume controller to create the persistentvolumeclaim %q", name))
			}
			return reject(VolumeBindingName, Unresolvable, notFound("persistentvolumeclaim", name))
		}
		if c.Status.Phase == v1.ClaimLost {
			return reject(VolumeBindingName, Unresolvable, fmt.Sprintf("persistentvolumeclaim %q bound to non-existent persistentvolume %q", c.Name, c.Spec.VolumeName))
		}
		if c.DeletionTimestamp != nil {
			return reject(VolumeBindingName, Unresolvable, fmt.Sprintf("persistentvolumeclaim %q is being deleted", c.Name))
		}
		if isEphemeral {
			if err := ephemeral.VolumeIsForPod(pod, c); err != nil {
				return reject(VolumeBindingName, Unresolvable, err.Error())
			}
		}
		claims = append(claims, c)
	}
	if len(claims) == 0 {
		return nil
	}
	immediate := false
	for _, c := range claims {
		if FullyBound(c) {
			pc.bound = append(pc.bound, c)
			continue
		}
		delayed, err := s.delayBinding(c)
		if err != nil {
			return reject(VolumeBindingName, Failed, err.Error())
		}
		// A claim that names its volume but is not bound yet waits for the
		// PV controller, as an immediate one does.
		if delayed && c.Spec.VolumeName == "" {
			pc.delayed = append(pc.delayed, c)
		} else {
			immediate = true
		}
	}
	if immediate {
		return reject(VolumeBindingName, Unresolvable, ReasonUnboundImmediate)
	}
	pc.binding = true
	return nil
}

// FullyBound reports whether the PV controller has finished binding a
// claim: it names its volume and carries the bind-completed annotation.
func FullyBound(c *v1.PersistentVolumeClaim) bool {
	return c.Spec.VolumeName != "" && metav1.HasAnnotation(c.ObjectMeta, storagehelpers.AnnBindCompleted)
}

// delayBinding reports whether a claim's storage class waits for the first
// consumer; a claim without a class, or whose class is missing, binds at
// once.
func (s *Session) delayBinding(c *v1.PersistentVolumeClaim) (bool, error) {
	name := storagehelpers.GetPersistentVolumeClaimClass(c)
	if name == "" {
		return false, nil
	}
	class := s.class(name)
	if class == nil {
		return false, nil
	}
	if class.VolumeBindingMode == nil {
		return false, fmt.Errorf("VolumeBindingMode not set for StorageClass %q", name)
	}
	return *class.VolumeBindingMode == storagev1.VolumeBindingWaitForFirstConsumer, nil
}

// notFound words a missing object as the API's not-found error does.
func notFound(resource, name string) string {
	return fmt.Sprintf("%s %q not found", resource, name)
}
