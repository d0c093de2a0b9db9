package dra

import (
	"context"
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// Writer makes a pod's claim allocations real before the pod is bound, as
// kube-scheduler v1.32's DynamicResources PreBind does: each claim the pod
// allocates gets the delete-protection finalizer (a metadata update) and
// then its allocation, and every claim the pod to its status.reservedFor
// (a status update). When a write fails, the pod's entries already written
// are taken out of reservedFor again, as kube-scheduler's Unreserve does;
// an allocation already stored stays, for the resource claim controller to
// release once no pod uses the claim.
type Writer struct {
	Client kubernetes.Interface
}

// Written is what Write stored: the claims now reserved for the pod, and
// the devices of each by "namespace/name".
type Written struct {
	Claims  []*resourcev1beta1.ResourceClaim
	Devices map[string][]string
}

// Write writes alloc for pod.
func (w Writer) Write(ctx context.Context, pod *v1.Pod, alloc *Allocation) (*Written, error) {
	if alloc == nil {
		return nil, nil
	}
	claims := w.Client.ResourceV1beta1().ResourceClaims(pod.Namespace)
	writes, err := BindClaims(pod, alloc, func(namespace, name string) (*resourcev1beta1.ResourceClaim, error) {
		return w.Client.ResourceV1beta1().ResourceClaims(namespace).Get(ctx, name, metav1.GetOptions{})
	})
	if err != nil {
		return nil, fmt.Errorf("binding claims: %w", err)
	}
	devices := map[string][]string{}
	var reserved []*resourcev1beta1.ResourceClaim
	for _, cw := range writes {
		claim := cw.Claim
		if cw.AddFinalizer {
			// Metadata and status are written apart; the finalizer goes
			// first so that no allocated claim lacks it.
			stored, err := claims.Update(ctx, claim, metav1.UpdateOptions{})
			if err != nil {
				return nil, w.undo(ctx, pod, reserved, fmt.Errorf("adding the finalizer to claim %s/%s: %w", claim.Namespace, claim.Name, err))
			}
			stored.Status = claim.Status
			claim = stored
		}
		stored, err := claims.UpdateStatus(ctx, claim, metav1.UpdateOptions{})
		if err != nil {
			return nil, w.undo(ctx, pod, reserved, fmt.Errorf("reserving claim %s/%s for the pod: %w", claim.Namespace, claim.Name, err))
		}
		reserved = append(reserved, stored)
		devices[claim.Namespace+"/"+claim.Name] = cw.Devices
	}
	return &Written{Claims: reserved, Devices: devices}, nil
}

// Release takes the pod out of the reservedFor of claims Write stored,
// when a later step of the bind fails.
func (w Writer) Release(ctx context.Context, pod *v1.Pod, written *Written, cause error) error {
	if written == nil {
		return cause
	}
	return w.undo(ctx, pod, written.Claims, cause)
}

// undo takes the pod out of the reservedFor of the claims written so far
// and returns cause, with any failure to undo added.
func (w Writer) undo(ctx context.Context, pod *v1.Pod, reserved []*resourcev1beta1.ResourceClaim, cause error) error {
	errs := []error{cause}
	for _, c := range reserved {
		patch := fmt.Sprintf(`{"metadata":{"uid":%q},"status":{"reservedFor":[{"$patch":"delete","uid":%q}]}}`, c.UID, pod.UID)
		_, err := w.Client.ResourceV1beta1().ResourceClaims(c.Namespace).Patch(ctx, c.Name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}, "status")
		if err != nil {
			errs = append(errs, fmt.Errorf("taking the pod out of claim %s/%s's reservedFor: %w", c.Namespace, c.Name, err))
		}
	}
	return errors.Join(errs...)
}
