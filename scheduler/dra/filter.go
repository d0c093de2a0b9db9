package dra

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	"k8s.io/apimachinery/pkg/util/sets"
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
		out[c.Namespace+"/"+c.Name] = DeviceNames(c.Result)
	}
	return out
}

// DeviceNames lists an allocation's devices as "driver/pool/device", in
// result order; nil for none.
func DeviceNames(r *resourcev1beta1.AllocationResult) []string {
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
//
// The allocation results may be shared with other pods' Allocations
// (answers.go); like the rest of the Allocation they are read-only.
func (s *Session) Filter(ctx context.Context, pc *PodClaims, node *v1.Node) (*Allocation, error) {
	if pc == nil {
		return &Allocation{NodeName: node.Name}, nil
	}
	results, err := s.filter(ctx, pc, node)
	if err != nil {
		return nil, err
	}
	alloc := &Allocation{NodeName: node.Name, Claims: make([]ClaimAllocation, len(pc.claims))}
	for i := range pc.claims {
		c := &pc.claims[i]
		alloc.Claims[i] = ClaimAllocation{Namespace: c.claim.Namespace, Name: c.claim.Name, Source: c.source, Result: c.result}
	}
	for j, i := range pc.allocIdx {
		alloc.Claims[i].Source = SourceNew
		alloc.Claims[i].Result = results[j]
	}
	return alloc, nil
}

// Fits returns what Filter returns as its error, without building the
// Allocation: a scheduler filters every candidate node but needs the
// Allocation of the chosen one only.
func (s *Session) Fits(ctx context.Context, pc *PodClaims, node *v1.Node) error {
	if pc == nil {
		return nil
	}
	_, err := s.filter(ctx, pc, node)
	return err
}

// filter is Filter's decision; it returns the results for pc.toAllocate.
func (s *Session) filter(ctx context.Context, pc *PodClaims, node *v1.Node) ([]*resourcev1beta1.AllocationResult, error) {
	unavailable := false
	for i := range pc.claims {
		if sel := pc.claims[i].availableOn; sel != nil && !sel.Match(node) {
			unavailable = true
		}
	}
	var results []*resourcev1beta1.AllocationResult
	if len(pc.toAllocate) > 0 {
		var err error
		results, err = s.allocate(ctx, pc, node)
		if err != nil {
			return nil, err
		}
		// The allocator is all or nothing.
		if results == nil {
			return nil, unresolvable("cannot allocate all claims")
		}
	}
	// kube checks this after allocating, so an allocation failure is what
	// a pod with both problems reports.
	if unavailable {
		return nil, unresolvable("resourceclaim not available on the node")
	}
	return results, nil
}

// allocate returns the allocator's results for the pod's unallocated
// claims on node, nil if they do not fit: the node's stored answer when
// there is one (answers.go), else one found on a node of the same shape
// (shapes.go), else a new search's; the last two are stored for the next
// pod.
func (s *Session) allocate(ctx context.Context, pc *PodClaims, node *v1.Node) ([]*resourcev1beta1.AllocationResult, error) {
	s.mu.RLock()
	a, ok := s.cachedAnswerLocked(pc.specGroup, node)
	s.mu.RUnlock()
	if ok {
		return a.results, nil
	}

	sh := s.shapeOf(node)
	s.mu.RLock()
	inUse, pattern := s.inUseOnLocked(node)
	rev := s.revision
	s.mu.RUnlock()

	key := shapeKey{group: pc.specGroup, shape: sh.id, busy: pattern}
	if sh.id >= 0 {
		if a, ok := s.sharedAnswer(key, sh); ok {
			s.storeAnswer(rev, answerKey{node, pc.specGroup}, a)
			return a.results, nil
		}
	}
	v1results, err := s.search(ctx, pc, node, inUse)
	if err != nil {
		return nil, err
	}
	// The length check is kube's.
	if len(v1results) == len(pc.toAllocate) {
		a.results = make([]*resourcev1beta1.AllocationResult, len(v1results))
		for i := range v1results {
			a.results[i] = allocationFromV1(&v1results[i])
		}
	}
	if sh.id >= 0 {
		s.shareAnswer(key, sh, a)
	}
	s.storeAnswer(rev, answerKey{node, pc.specGroup}, a)
	return a.results, nil
}

// search runs kube's allocator for the pod's unallocated claims on node
// with the given devices in use.
func (s *Session) search(ctx context.Context, pc *PodClaims, node *v1.Node, inUse sets.Set[structured.DeviceID]) (results []resourcev1.AllocationResult, err error) {
	if s.searchTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.searchTimeout)
		defer cancel()
	}
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
