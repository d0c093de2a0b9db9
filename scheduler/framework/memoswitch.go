package framework

import (
	"sync"
	"sync/atomic"
)

// MemoSwitch lets tests run a plugin's or an action's memo three ways:
// as in production, switched off (every answer computed), or checked
// (every reused answer also computed and compared). A memo reads
// Forgetting and Checking where it would reuse an answer.
type MemoSwitch struct {
	forget atomic.Bool
	check  atomic.Pointer[MemoCheck]
}

// Forget switches the memo off until restore is called.
func (s *MemoSwitch) Forget() (restore func()) {
	s.forget.Store(true)
	return func() { s.forget.Store(false) }
}

// Forgetting reports whether the memo is switched off.
func (s *MemoSwitch) Forgetting() bool { return s.forget.Load() }

// Check has every reused answer computed again and compared, until stop
// is called.
func (s *MemoSwitch) Check() (c *MemoCheck, stop func()) {
	c = &MemoCheck{}
	s.check.Store(c)
	return c, func() { s.check.Store(nil) }
}

// Checking returns the running check, nil when none runs.
func (s *MemoSwitch) Checking() *MemoCheck { return s.check.Load() }

// MemoCheck counts the answers a memo reused and those that differ from
// computing them again.
type MemoCheck struct {
	mu            sync.Mutex
	reused, wrong int
	first         string
}

// Compare counts one reused answer; when it differs from the one computed
// again (same false), describe says how, for the first such.
func (c *MemoCheck) Compare(same bool, describe func() string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reused++
	if same {
		return
	}
	c.wrong++
	if c.first == "" {
		c.first = describe()
	}
}

// Result returns how many answers were reused, how many of them differed
// and the first that did.
func (c *MemoCheck) Result() (reused, wrong int, first string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reused, c.wrong, c.first
}
