package dra

import (
	"sync"

	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"
)

// Session is the mutable DRA state of one scheduling session on top of a
// Snapshot: the claims that Reserve allocated and the pods it reserved
// claims for, which later pods of the same session must see. PreFilter and
// Filter only read it and may run on many goroutines; Reserve and Unreserve
// write it and are expected to be called one at a time (a lock makes
// overlapping calls safe, not meaningful).
type Session struct {
	snap *Snapshot

	mu sync.RWMutex
	// revision counts Reserve and Unreserve calls, so that a PodClaims
	// prepared before one of them knows its in-use set is stale.
	revision uint64
	// inUse holds devices allocated by Reserve in this session.
	inUse sets.Set[structured.DeviceID]
	// claims holds per-claim changes made in this session, by
	// "namespace/name".
	claims map[string]*sessionClaim
	// pods records what Reserve did for each pod, for Unreserve.
	pods map[types.UID]*podReservation
}

// sessionClaim is what this session changed about one claim.
type sessionClaim struct {
	// allocation is set when a Reserve in this session allocated the
	// claim (it was unallocated in the snapshot).
	allocation *resourcev1beta1.AllocationResult
	devices    []structured.DeviceID
	// consumers are the pods reserved for the claim in this session, in
	// Reserve order; the binder adds them to status.reservedFor.
	consumers []types.UID
}

// podReservation remembers one pod's Reserve.
type podReservation struct {
	node      string
	claimKeys []string
}

// NewSession starts a session on s.
func NewSession(s *Snapshot) *Session {
	return &Session{
		snap:   s,
		inUse:  sets.New[structured.DeviceID](),
		claims: map[string]*sessionClaim{},
		pods:   map[types.UID]*podReservation{},
	}
}

// inUseLocked returns the devices other claims hold: the snapshot's and
// this session's. The result must only be read. Callers hold s.mu.
func (s *Session) inUseLocked() sets.Set[structured.DeviceID] {
	if s.inUse.Len() == 0 {
		return s.snap.allocated
	}
	return s.snap.allocated.Union(s.inUse)
}
