package scheduler

import (
	"sync"
	"sync/atomic"

	"github.com/caldera-scheduler/caldera/scheduler/conf"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Policy is what one session schedules with: the plugin registry and the
// configuration validated against it. The two travel together so that a
// session never pairs a configuration with plugins it was not checked
// against. A published Policy is never changed.
type Policy struct {
	Plugins framework.Registry
	Config  *conf.Config
	// Versions names the version serving each plugin whose code can change
	// while the scheduler runs (a Wasm module's sha256), for the plugins the
	// configuration names; native plugins are absent.
	Versions map[string]string
	// Images names, for the plugins whose module came from an OCI
	// registry (wasm.image), the image pinned by its manifest digest.
	Images map[string]string
	// Retire, if set, runs once, after the policy has been replaced and the
	// last session using it has finished: it frees what only this policy
	// holds (module instances and compiled code).
	Retire func()

	// refs counts the sessions running with the policy, plus one while it
	// is the store's current policy. It starts at 1 when published.
	refs   atomic.Int64
	retire sync.Once
}

// tryAcquire takes a reference unless the policy has already been drained.
func (p *Policy) tryAcquire() bool {
	for {
		n := p.refs.Load()
		if n <= 0 {
			return false
		}
		if p.refs.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// Release gives back a reference taken by PolicyStore.Acquire. The last
// release of a replaced policy retires it.
func (p *Policy) Release() {
	if p.refs.Add(-1) == 0 && p.Retire != nil {
		p.retire.Do(p.Retire)
	}
}

// PolicyStore holds the current policy. Sessions acquire it at their start
// and release it at their end; a reloader publishes a new one at any time,
// which the next session picks up. Swapping is one atomic pointer store, so
// a session never waits for a reload, nor a reload for a session.
type PolicyStore struct {
	current atomic.Pointer[Policy]
}

// NewPolicyStore returns a store serving p.
func NewPolicyStore(p *Policy) *PolicyStore {
	s := &PolicyStore{}
	s.Publish(p)
	return s
}

// Publish makes p the policy of every session that starts from now on. The
// policy it replaces is retired once its running sessions, if any, end. A
// policy is published at most once.
func (s *PolicyStore) Publish(p *Policy) {
	if p != nil {
		p.refs.Store(1)
	}
	if old := s.current.Swap(p); old != nil && old != p {
		old.Release()
	}
}

// Acquire returns the current policy with a reference the caller must
// Release, or nil when the store is closed.
func (s *PolicyStore) Acquire() *Policy {
	for {
		p := s.current.Load()
		if p == nil {
			return nil
		}
		// A failed tryAcquire means p was replaced and drained between the
		// load and now: the store already holds its successor.
		if p.tryAcquire() {
			return p
		}
	}
}

// Current returns the current policy without a reference, for reading its
// configuration and versions (not for running a session with it).
func (s *PolicyStore) Current() *Policy { return s.current.Load() }

// Close retires the current policy once its sessions end; later sessions
// find no policy and fail.
func (s *PolicyStore) Close() { s.Publish(nil) }
