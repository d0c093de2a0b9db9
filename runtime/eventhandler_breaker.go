package runtime

import (
	"fmt"
	"sync"
	"time"
)

// A handler whose every call fails (a module that traps on every event, or
// answers what the host refuses) costs an instance per call, and the
// halving of failed batches makes that two calls per event: 4,000 pods kept
// the cache from catching up for close to a minute. After breakerThreshold
// failed calls in a row the handler stops asking for a pause, its events
// meeting the failure policy at once; the pause starts at breakerFirstPause
// and doubles, up to breakerMaxPause, while the first call after each pause
// fails too. One call that works closes the breaker.
const (
	breakerThreshold  = 16
	breakerFirstPause = time.Second
	breakerMaxPause   = 30 * time.Second
)

type breaker struct {
	mu       sync.Mutex
	failures int // in a row
	pause    time.Duration
	until    time.Time
	now      func() time.Time
}

// paused returns an error saying why no call is made now, or nil.
func (b *breaker) paused() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if now := b.now(); now.Before(b.until) {
		return fmt.Errorf("calls paused for %v after %d failed calls in a row", b.until.Sub(now).Round(time.Millisecond), b.failures)
	}
	return nil
}

// record counts a call's outcome, and opens the breaker at the threshold.
func (b *breaker) record(ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if ok {
		b.failures, b.pause = 0, 0
		return
	}
	b.failures++
	if b.failures < breakerThreshold {
		return
	}
	switch {
	case b.pause == 0:
		b.pause = breakerFirstPause
	case b.pause < breakerMaxPause:
		b.pause = min(2*b.pause, breakerMaxPause)
	}
	b.until = b.now().Add(b.pause)
}

// open reports whether calls are paused, for a caller deciding whether to
// ask again.
func (b *breaker) open() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.now().Before(b.until)
}
