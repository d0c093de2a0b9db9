package dra

import (
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"
)

// Reserve records that pod goes to node with alloc (Filter's answer for
// that node): claims it newly allocates hold their devices for the rest of
// the session, and the pod counts as a consumer of all its claims. Later
// pods of the session see those claims as allocated, which is how pods
// sharing a claim can all be placed in one session. (kube-scheduler would
// instead make the second pod wait until the first one's binding wrote the
// allocation; a session that places a gang at once cannot wait.)
//
// Reserve refuses, with Code Unschedulable, an Allocation that no longer
// fits because the session changed after Filter; Filter again then.
func (s *Session) Reserve(pod *v1.Pod, pc *PodClaims, node string, alloc *Allocation) error {
	if pc == nil {
		return nil
	}
	if pc.podUID != pod.UID {
		return &StatusError{Code: Error, Reason: fmt.Sprintf("pod %s/%s: PodClaims belong to another pod", pod.Namespace, pod.Name)}
	}
	if alloc == nil || alloc.NodeName != node || len(alloc.Claims) != len(pc.claims) {
		return &StatusError{Code: Error, Reason: fmt.Sprintf("claim allocation not found for node %s", node)}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.pods[pod.UID]; ok {
		return &StatusError{Code: Error, Reason: fmt.Sprintf("pod %s/%s is already reserved in this session", pod.Namespace, pod.Name)}
	}

	// Check everything before changing anything, so that a refusal leaves
	// the session as it was.
	newDevices := sets.New[structured.DeviceID]()
	for i := range alloc.Claims {
		ca := &alloc.Claims[i]
		key := pc.claims[i].key
		sc := s.claims[key]
		if ca.Source == SourceSession && (sc == nil || sc.allocation == nil) {
			return &StatusError{Code: Unschedulable, Reason: fmt.Sprintf("resourceclaim %s: the allocation shared in this session was undone in the meantime", key)}
		}
		if ca.Source != SourceNew {
			continue
		}
		if sc != nil && sc.allocation != nil {
			return &StatusError{Code: Unschedulable, Reason: fmt.Sprintf("resourceclaim %s was allocated for another pod in the meantime", key)}
		}
		for _, id := range busyDevices(ca.Result) {
			if s.inUse.Has(id) || newDevices.Has(id) {
				return &StatusError{Code: Unschedulable, Reason: fmt.Sprintf("device %s was allocated for another claim in the meantime", id)}
			}
			newDevices.Insert(id)
		}
	}

	res := &podReservation{node: node}
	var taken []structured.DeviceID
	for i := range alloc.Claims {
		ca := &alloc.Claims[i]
		key := pc.claims[i].key
		sc := s.claims[key]
		if sc == nil {
			sc = &sessionClaim{}
			s.claims[key] = sc
		}
		if ca.Source == SourceNew {
			sc.allocation = ca.Result
			sc.devices = busyDevices(ca.Result)
			taken = append(taken, sc.devices...)
		}
		sc.consumers = append(sc.consumers, pod.UID)
		res.claimKeys = append(res.claimKeys, key)
	}
	s.holdLocked(taken)
	s.pods[pod.UID] = res
	s.revision++
	return nil
}

// Unreserve undoes Reserve for pod (a no-op if it was not reserved). A
// claim allocated in this session gives its devices back once no reserved
// pod of the session uses it any more; while another pod that shares it
// stays reserved, the allocation stays too.
func (s *Session) Unreserve(pod *v1.Pod) {
	s.mu.Lock()
	defer s.mu.Unlock()
	res, ok := s.pods[pod.UID]
	if !ok {
		return
	}
	delete(s.pods, pod.UID)
	var freed []structured.DeviceID
	for _, key := range res.claimKeys {
		sc := s.claims[key]
		if sc == nil {
			continue
		}
		if i := slices.Index(sc.consumers, pod.UID); i >= 0 {
			sc.consumers = slices.Delete(sc.consumers, i, i+1)
		}
		if len(sc.consumers) == 0 {
			freed = append(freed, sc.devices...)
			delete(s.claims, key)
		}
	}
	s.releaseLocked(freed)
	s.revision++
}
