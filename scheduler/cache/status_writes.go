package cache

import (
	"context"
	"sync"
)

// statusWrites runs status writes on the bind workers instead of the
// session's goroutine: a session that changed a thousand PodGroups would
// otherwise spend its close waiting for a thousand round trips (15-26 s in
// bench-e2e). Per object it keeps only the latest write wanted, and at most
// one queued or running, so that writes of one object never overlap or
// land out of order, and a write superseded before it ran is skipped.
// Flush waits for them like for binds.
type statusWrites struct {
	mu      sync.Mutex
	pending map[string]func(context.Context)
	active  map[string]bool
}

// writeStatus queues write as the latest status write of the object key.
func (c *Cache) writeStatus(key string, write func(context.Context)) {
	s := &c.statusWrites
	s.mu.Lock()
	s.pending[key] = write
	if s.active[key] {
		s.mu.Unlock()
		return
	}
	s.active[key] = true
	s.mu.Unlock()
	c.submit(func(ctx context.Context) { c.drainStatusWrites(ctx, key) })
}

// drainStatusWrites runs the object's latest write until none is left.
func (c *Cache) drainStatusWrites(ctx context.Context, key string) {
	s := &c.statusWrites
	for {
		s.mu.Lock()
		write, ok := s.pending[key]
		if !ok {
			delete(s.active, key)
			s.mu.Unlock()
			return
		}
		delete(s.pending, key)
		s.mu.Unlock()
		write(ctx)
	}
}

// dropStatusWrite forgets the object's write that is queued and not yet
// running, if any.
func (c *Cache) dropStatusWrite(key string) {
	s := &c.statusWrites
	s.mu.Lock()
	delete(s.pending, key)
	s.mu.Unlock()
}
