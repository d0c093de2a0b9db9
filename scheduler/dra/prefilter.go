package dra

import (
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
)

// ReservedForMaxSize is how many consumers a claim's status.reservedFor may
// list: 256 in Kubernetes 1.32 (resource.k8s.io/v1beta1; it was 32 in the
// v1alpha2 API of 1.26 to 1.30). kube-scheduler 1.32 does not check it; the
// API server refuses the status update that would exceed it, so such a pod
// fails at binding, attempt after attempt. This package refuses the pod in
// PreFilter instead, with a reason that says why.
const ReservedForMaxSize = resourcev1beta1.ResourceClaimReservedForMaxSize

// AllocationSource says where the allocation of a claim comes from.
type AllocationSource int

const (
	// SourceExisting: the claim was allocated in the snapshot.
	SourceExisting AllocationSource = iota + 1
	// SourceSession: an earlier Reserve in this session allocated the
	// claim for another pod that shares it; whichever of the pods is bound
	// first writes the allocation.
	SourceSession
	// SourceNew: Filter allocated the claim for this pod on this node.
	SourceNew
)

// PodClaims is a pod's DRA state for one scheduling attempt, prepared by
// PreFilter and read by Filter, Reserve and the binder. It is not modified
// after PreFilter, so concurrent Filter calls may share it.
type PodClaims struct {
	podUID types.UID
	// claims in the order of pod.Spec.ResourceClaims (claims that were
	// intentionally not created are left out, a claim named twice once).
	claims []podClaim
	// toAllocate are the claims without allocation, as the allocator
	// wants them, and their indices in claims.
	toAllocate []*resourcev1.ResourceClaim
	allocIdx   []int
	// specGroup identifies the specs of toAllocate among the session's
	// pods, for reusing answers (answers.go).
	specGroup int
}

type podClaim struct {
	key    string
	claim  *resourcev1beta1.ResourceClaim // the snapshot's object, read-only
	source AllocationSource               // 0 if it needs allocation
	result *resourcev1beta1.AllocationResult
	// availableOn is the allocation's node selector, nil for "anywhere".
	availableOn *nodeaffinity.NodeSelector
}

// ClaimKeys returns "namespace/name" of the pod's claims in pod order.
func (pc *PodClaims) ClaimKeys() []string {
	keys := make([]string, len(pc.claims))
	for i := range pc.claims {
		keys[i] = pc.claims[i].key
	}
	return keys
}

// PreFilter resolves the pod's claims and checks what can be checked
// without a node, as kube-scheduler 1.32's PreFilter (and PreEnqueue) does.
// A pod without claims gets nil, nil: DRA has nothing to say about it. An
// error is a *StatusError.
//
// Call it after the Reserve of the pods placed before. Filter always
// counts the devices reserved so far, so a PodClaims made earlier still
// gives right answers about devices; a claim shared with a pod reserved
// since is still seen as unallocated, and Reserve refuses the result.
func (s *Session) PreFilter(pod *v1.Pod) (*PodClaims, error) {
	if len(pod.Spec.ResourceClaims) == 0 {
		return nil, nil
	}
	if pod.UID == "" {
		// Reservations are by UID (status.reservedFor, the session's
		// bookkeeping); pods from a cluster always have one.
		return nil, &StatusError{Code: Error, Reason: fmt.Sprintf("pod %s/%s has no UID, which claim reservations need", pod.Namespace, pod.Name)}
	}
	pc := &PodClaims{podUID: pod.UID}
	for i := range pod.Spec.ResourceClaims {
		name, mustCheckOwner, err := resourceclaim.Name(pod, &pod.Spec.ResourceClaims[i])
		if err != nil {
			return nil, unresolvable("%s", err.Error())
		}
		if name == nil {
			// The claim was deliberately not created (for example a
			// template that produced nothing); nothing to do for it.
			continue
		}
		key := pod.Namespace + "/" + *name
		claim := s.snap.claims[key]
		if claim == nil {
			// kube reads claims through its assume cache, whose
			// not-found error reads like this.
			return nil, unresolvable("could not find ResourceClaim %q", key)
		}
		if claim.DeletionTimestamp != nil {
			return nil, unresolvable("resourceclaim %q is being deleted", claim.Name)
		}
		if mustCheckOwner {
			if err := resourceclaim.IsForPod(pod, &resourcev1.ResourceClaim{ObjectMeta: claim.ObjectMeta}); err != nil {
				return nil, unresolvable("%s", err.Error())
			}
		}
		if slices.ContainsFunc(pc.claims, func(c podClaim) bool { return c.key == key }) {
			continue
		}
		pc.claims = append(pc.claims, podClaim{key: key, claim: claim})
	}
	if len(pc.claims) == 0 {
		return nil, nil
	}

	s.mu.RLock()
	defer s.mu.RUnlock()
	for i := range pc.claims {
		c := &pc.claims[i]
		sc := s.claims[c.key]
		switch {
		case c.claim.Status.Allocation != nil:
			c.source, c.result = SourceExisting, c.claim.Status.Allocation
		case sc != nil && sc.allocation != nil:
			c.source, c.result = SourceSession, sc.allocation
		}
		if c.result != nil {
			if err := checkReservedFor(pod, c.claim, sc); err != nil {
				return nil, err
			}
			if ns := c.result.NodeSelector; ns != nil {
				sel, err := nodeaffinity.NewNodeSelector(ns)
				if err != nil {
					return nil, asError(err)
				}
				c.availableOn = sel
			}
			continue
		}
		for j := range c.claim.Spec.Devices.Requests {
			r := &c.claim.Spec.Devices.Requests[j]
			if why := refuseRequest(r); why != "" {
				return nil, unresolvable("%s", why)
			}
			if r.DeviceClassName == "" {
				return nil, &StatusError{Code: Error, Reason: fmt.Sprintf("request %s: unsupported request type", r.Name)}
			}
			if _, ok := s.snap.classes[r.DeviceClassName]; !ok {
				return nil, unresolvable("request %s: device class %s does not exist", r.Name, r.DeviceClassName)
			}
		}
		v1claim := claimToV1(c.claim)
		defaultRequests(v1claim)
		pc.toAllocate = append(pc.toAllocate, v1claim)
		pc.allocIdx = append(pc.allocIdx, i)
	}
	if len(pc.toAllocate) > 0 {
		group, err := s.specGroupOf(pc.toAllocate)
		if err != nil {
			return nil, asError(err)
		}
		pc.specGroup = group
	}
	return pc, nil
}

// checkReservedFor refuses a claim whose reservedFor is already full,
// counting pods reserved earlier in this session. Sharing itself is not
// limited: kube 1.32 lets any number of pods (up to the limit) use a claim.
func checkReservedFor(pod *v1.Pod, claim *resourcev1beta1.ResourceClaim, sc *sessionClaim) error {
	n := len(claim.Status.ReservedFor)
	for _, r := range claim.Status.ReservedFor {
		if r.UID == pod.UID {
			return nil
		}
	}
	if sc != nil {
		if slices.Contains(sc.consumers, pod.UID) {
			return nil
		}
		n += len(sc.consumers)
	}
	if n >= ReservedForMaxSize {
		return unresolvable("resourceclaim %s/%s is already reserved for %d consumers, the most status.reservedFor can hold", claim.Namespace, claim.Name, n)
	}
	return nil
}
