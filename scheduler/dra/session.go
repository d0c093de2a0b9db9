package dra

import (
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"
)

// Session is the mutable DRA state of one scheduling session on top of a
// Snapshot: the claims that Reserve allocated and the pods it reserved
// claims for, which later pods of the same session must see. PreFilter and
// Filter read it (adding only to the answers they keep for reuse) and may
// run on many goroutines; Reserve and Unreserve write it and are expected
// to be called one at a time (a lock makes overlapping calls safe, not
// meaningful).
type Session struct {
	snap *Snapshot

	mu sync.RWMutex
	// revision counts Reserve and Unreserve calls, so that an answer
	// found while one of them ran is not stored (answers.go).
	revision uint64
	// inUse holds devices allocated by Reserve in this session, inUseIn
	// the same by pool.
	inUse   sets.Set[structured.DeviceID]
	inUseIn poolDevices
	// claims holds per-claim changes made in this session, by
	// "namespace/name".
	claims map[string]*sessionClaim
	// pods records what Reserve did for each pod, for Unreserve.
	pods map[types.UID]*podReservation
	// answers are the allocator's answers still valid, by spec group and
	// node object (answers.go); answerKeys lists them by node name, for
	// dropping them.
	answers    []map[*v1.Node]answer
	answerKeys map[string][]answerKey

	// specGroups are the lists of claim specs PreFilter has seen, by
	// their encoding; numSpecGroups numbers them.
	specMu        sync.Mutex
	specGroups    map[string][]specGroup
	numSpecGroups int

	// shapes are the nodes' shapes, shapeReps the first node's specs of
	// each by their encoding, numShapes numbers them, shapeAnswers are
	// the answers nodes of one shape share (shapes.go).
	shapeMu      sync.Mutex
	shapes       map[*v1.Node]*nodeShape
	shapeReps    map[string][]shapeRep
	numShapes    int
	shapeAnswers map[shapeKey]shapeAnswer

	// searchTimeout bounds one allocator search; 0: no bound.
	searchTimeout time.Duration
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
		snap:    s,
		inUse:   sets.New[structured.DeviceID](),
		inUseIn: poolDevices{},
		claims:  map[string]*sessionClaim{},
		pods:    map[types.UID]*podReservation{},

		answerKeys: map[string][]answerKey{},
		specGroups: map[string][]specGroup{},

		shapes:       map[*v1.Node]*nodeShape{},
		shapeReps:    map[string][]shapeRep{},
		shapeAnswers: map[shapeKey]shapeAnswer{},
	}
}

// SetSearchTimeout bounds each allocator search Filter starts (0: no
// bound); a search that runs out fails the Filter call with an Error, as a
// cancelled context does. Filter answers many calls from earlier searches,
// so the bound applies to the search, not to the call. Set it before the
// first Filter.
func (s *Session) SetSearchTimeout(d time.Duration) {
	s.searchTimeout = d
}

// holdLocked records devices that Reserve allocated. Callers hold s.mu
// for writing.
func (s *Session) holdLocked(ids []structured.DeviceID) {
	s.inUse.Insert(ids...)
	for _, id := range ids {
		s.inUseIn.insert(id)
	}
	s.forgetAnswersLocked(ids)
}

// releaseLocked gives back devices that Reserve allocated. Callers hold
// s.mu for writing.
func (s *Session) releaseLocked(ids []structured.DeviceID) {
	s.inUse.Delete(ids...)
	for _, id := range ids {
		s.inUseIn.delete(id)
	}
	s.forgetAnswersLocked(ids)
}

// inUseOnLocked returns the devices of node's view that other claims
// hold (the snapshot's and this session's), as a set of IDs and as one
// byte per device in view order, 1 if in use. The allocator asks only
// about the devices of the view, so the set is all it needs to know.
// Callers hold s.mu.
func (s *Session) inUseOnLocked(node *v1.Node) (sets.Set[structured.DeviceID], string) {
	set := sets.New[structured.DeviceID]()
	var pattern []byte
	for _, i := range s.snap.candidates(node) {
		sl := s.snap.slices[i]
		key := poolKey{sl.Spec.Driver, sl.Spec.Pool.Name}
		allocated, reserved := s.snap.allocatedIn[key], s.inUseIn[key]
		for _, d := range sl.Spec.Devices {
			if allocated.Has(d.Name) || reserved.Has(d.Name) {
				set.Insert(structured.MakeDeviceID(sl.Spec.Driver, sl.Spec.Pool.Name, d.Name))
				pattern = append(pattern, 1)
			} else {
				pattern = append(pattern, 0)
			}
		}
	}
	return set, string(pattern)
}

// poolDevices holds device names by pool.
type poolDevices map[poolKey]sets.Set[string]

func (p poolDevices) insert(id structured.DeviceID) {
	key := poolKey{id.Driver.String(), id.Pool.String()}
	if p[key] == nil {
		p[key] = sets.New[string]()
	}
	p[key].Insert(id.Device.String())
}

func (p poolDevices) delete(id structured.DeviceID) {
	key := poolKey{id.Driver.String(), id.Pool.String()}
	if p[key].Delete(id.Device.String()).Len() == 0 {
		delete(p, key)
	}
}
