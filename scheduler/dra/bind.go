package dra

import (
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
)

// ClaimGetter returns the current version of a claim at bind time (from the
// API server or the binder's own store).
type ClaimGetter func(namespace, name string) (*resourcev1beta1.ResourceClaim, error)

// ClaimWrite is one claim update the binder must make before binding the
// pod, in the order given.
type ClaimWrite struct {
	// Claim is the claim as it must be stored: finalizer, status.allocation
	// and status.reservedFor already set. It is a copy; the binder owns it.
	Claim *resourcev1beta1.ResourceClaim
	// AddFinalizer: the finalizer resource.kubernetes.io/delete-protection
	// was added to metadata. Metadata and status are separate writes in the
	// API (update, then update of the status subresource), and the
	// finalizer must be stored first, so that a claim is never allocated
	// without the protection against deletion while in use.
	AddFinalizer bool
	// Allocate: status.allocation is written by this update.
	Allocate bool
	// Devices are the claim's devices as "driver/pool/device".
	Devices []string
}

// BindClaims returns the claim updates that bind pod's claims to the node
// of alloc, following kube-scheduler 1.32's PreBind: a claim already
// reserved for the pod needs nothing; a claim this pod allocates gets the
// finalizer (if missing) and then its allocation; every other claim gets the
// pod appended to status.reservedFor as {resource: pods, name, uid}.
//
// It works on the claims as get returns them now, and refuses what the API
// server or kube would refuse: a claim deleted in the meantime, a claim
// allocated differently in the meantime, a claim that lost its allocation,
// a full reservedFor. A claim that another pod of the same session
// allocated (SourceSession), or that this pod allocated and shares with
// pods reserved after it, is allocated by whichever of the pods is bound
// first; for the others the same allocation is already there.
func BindClaims(pod *v1.Pod, alloc *Allocation, get ClaimGetter) ([]ClaimWrite, error) {
	if alloc == nil {
		return nil, nil
	}
	var writes []ClaimWrite
	for _, ca := range alloc.Claims {
		cur, err := get(ca.Namespace, ca.Name)
		if err != nil {
			return nil, fmt.Errorf("get claim %s/%s: %w", ca.Namespace, ca.Name, err)
		}
		if slices.ContainsFunc(cur.Status.ReservedFor, func(r resourcev1beta1.ResourceClaimConsumerReference) bool { return r.UID == pod.UID }) {
			continue
		}
		if cur.DeletionTimestamp != nil {
			return nil, fmt.Errorf("claim %s/%s got deleted in the meantime", cur.Namespace, cur.Name)
		}
		claim := cur.DeepCopy()
		w := ClaimWrite{Claim: claim}
		switch {
		case ca.Source == SourceExisting:
			if claim.Status.Allocation == nil {
				return nil, fmt.Errorf("claim %s/%s is no longer allocated", claim.Namespace, claim.Name)
			}
		case claim.Status.Allocation != nil:
			// Equal means another pod of this session that shares the
			// claim was bound first and wrote this very allocation.
			if !apiequality.Semantic.DeepEqual(claim.Status.Allocation, ca.Result) {
				return nil, fmt.Errorf("claim %s/%s got allocated elsewhere in the meantime", claim.Namespace, claim.Name)
			}
		default:
			if !slices.Contains(claim.Finalizers, resourcev1beta1.Finalizer) {
				claim.Finalizers = append(claim.Finalizers, resourcev1beta1.Finalizer)
				w.AddFinalizer = true
			}
			claim.Status.Allocation = ca.Result.DeepCopy()
			w.Allocate = true
		}
		if len(claim.Status.ReservedFor) >= ReservedForMaxSize {
			return nil, fmt.Errorf("claim %s/%s: status.reservedFor already holds %d consumers, the maximum", claim.Namespace, claim.Name, len(claim.Status.ReservedFor))
		}
		claim.Status.ReservedFor = append(claim.Status.ReservedFor, resourcev1beta1.ResourceClaimConsumerReference{
			Resource: "pods",
			Name:     pod.Name,
			UID:      pod.UID,
		})
		w.Devices = DeviceNames(claim.Status.Allocation)
		writes = append(writes, w)
	}
	return writes, nil
}
