package dra

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	"k8s.io/dynamic-resource-allocation/structured"
)

// Allocation is Filter's answer for one node: the allocation each of the
// pod's claims would have there. Reserve and BindClaims take it back.
// Treat it as read-only.
type Allocation struct {
	NodeName string
	// Claims in the order of PodClaims.ClaimKeys.
	Claims []ClaimAllocation
}

// ClaimAllocation is one claim's allocation on the node.
type ClaimAllocation struct {
	Namespace, Name string
	Source          AllocationSource
	// Result is the allocation in effect: the claim's own (SourceExisting), the
	// one an earlier Reserve made (SourceSession) or the one just computed
	// (SourceNew).
	Result *resourcev1beta1.AllocationResult
}

// Devices lists each claim's devices as "driver/pool/device", keyed by
// "namespace/name", for reports.
func (a *Allocation) Devices() map[string][]string {
	out := make(map[string][]string, len(a.Claims))
	for _, c := range a.Claims {
		out[c.Namespace+"/"+c.Name] = deviceNames(c.Result)
	}
	return out
}

func deviceNames(r *resourcev1beta1.AllocationResult) []string {
	if r == nil {
		return nil
	}
	names := make([]string, 0, len(r.Devices.Results))
	for _, d := range r.Devices.Results {
		names = append(names, d.Driver+"/"+d.Pool+"/"+d.Device)
	}
	return names
}

// Filter decides whether the pod's claims can be used on node, as
// kube-scheduler 1.32's Filter does: allocated claims must be reachable
// from the node, and the unallocated ones must all be allocatable there
// together, next to the devices other claims hold (the snapshot's and this
// session's reservations). It only reads shared state, so it may run for
// many nodes at once. A nil pc (a pod without claims) passes.
//
// An error with Code Error (a CEL selector that does not compile or fails
// on a device, for instance) is about the pod, not the node: kube-scheduler
// stops the pod's scheduling attempt on it, even if other nodes fit.
// Cancelling ctx stops a long search with an Error.
func (s *Session) Filter(ctx context.Context, pc *PodClaims, node *v1.Node) (alloc *Allocation, err error) {
	if pc == nil {
		return &Allocation{NodeName: node.Name}, nil
	}
	unavailable := false
	for i := range pc.claims {
		if sel := pc.claims[i].availableOn; sel != nil && !sel.Match(node) {
			unavailable = true
		}
	}

	var results []resourcev1.AllocationResult
	if len(pc.toAllocate) > 0 {
		results, err = s.allocate(ctx, pc, node)
		if err != nil {
			return nil, err
		}
		// The allocator is all or nothing; the length check is kube's.
		if len(results) != len(pc.toAllocate) {
			return nil, unresolvable("cannot allocate all claims")
		}
	}
	// kube checks this after allocating, so an allocation failure is what
	// a pod with both problems reports.
	if unavailable {
		return nil, unresolvable("resourceclaim not available on the node")
	}

	alloc = &Allocation{NodeName: node.Name, Claims: make([]ClaimAllocation, len(pc.claims))}
	for i := range pc.claims {
		c := &pc.claims[i]
		alloc.Claims[i] = ClaimAllocation{Namespace: c.claim.Namespace, Name: c.claim.Name, Source: c.source, Result: c.result}
	}
	for j, i := range pc.allocIdx {
		alloc.Claims[i].Source = SourceNew
		alloc.Claims[i].Result = allocationFromV1(&results[j])
	}
	return alloc, nil
}

// allocate runs kube's allocator for the pod's unallocated claims on node.
func (s *Session) allocate(ctx context.Context, pc *PodClaims, node *v1.Node) (results []resourcev1.AllocationResult, err error) {
	inUse := pc.inUse
	s.mu.RLock()
	if s.revision != pc.revision {
		// Reserve or Unreserve ran since PreFilter; count what they
		// changed rather than hand the allocator a stale picture.
		inUse = s.inUseLocked()
	}
	s.mu.RUnlock()

	view := s.snap.viewForNode(node, inUse)
	// The library promises errors, not panics, for bad input; a panic
	// here would take the whole scheduler down, so it becomes an error
	// for this pod.
	defer func() {
		if r := recover(); r != nil {
			results, err = nil, &StatusError{Code: Error, Reason: fmt.Sprintf("dynamic resource allocation failed: %v", r)}
		}
	}()
	allocator, err := structured.NewAllocator(ctx, features132, structured.AllocatedState{AllocatedDevices: view.inUse}, s.snap.classes, view.slices, celCache)
	if err != nil {
		return nil, asError(err)
	}
	results, err = allocator.Allocate(ctx, node, pc.toAllocate)
	if err != nil {
		return nil, asError(err)
	}
	view.restore(results)
	return results, nil
}
