// Package shared holds what the actions of one scheduler share across
// sessions. Volcano keeps it in process-wide variables; here the action
// registry makes one value and hands it to every action factory it builds.
package shared

import (
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/types"
)

// State is shared by every action made from one registry.
type State struct {
	// nextNode is where the next feasible-node search starts in the session's
	// node list, so that every node gets its turn across tasks and sessions.
	nextNode atomic.Int64

	mu sync.Mutex
	// enqueuedIn is the session in which enqueue last ran: allocate admits
	// pending jobs itself only when no enqueue runs.
	enqueuedIn types.UID
}

// New returns a fresh state.
func New() *State { return &State{} }

// NextNode returns where the next node search starts, for n nodes.
func (s *State) NextNode(n int) int {
	if n == 0 {
		return 0
	}
	return int(s.nextNode.Load() % int64(n))
}

// SetNextNode records where the following search starts.
func (s *State) SetNextNode(i int) { s.nextNode.Store(int64(i)) }

// MarkEnqueueRan records that enqueue ran in the session.
func (s *State) MarkEnqueueRan(session types.UID) {
	s.mu.Lock()
	s.enqueuedIn = session
	s.mu.Unlock()
}

// EnqueueRan reports whether enqueue ran in the session.
func (s *State) EnqueueRan(session types.UID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.enqueuedIn == session
}
