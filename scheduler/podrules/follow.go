package podrules

import (
	"sync"
	"sync/atomic"
)

// follower keeps a state current with its Index: the state applies each
// counted pod once when built, then each log entry it has not seen.
type follower struct {
	idx  *Index
	mu   sync.Mutex
	seen atomic.Int64 // log entries applied
}

// start applies every pod counted now that is in src (every pod for a
// nil src; see sources).
func (f *follower) start(idx *Index, src []podSet, apply func(*Pod, int64)) {
	f.idx = idx
	idx.eachPod(src, func(p *Pod) { apply(p, 1) })
	f.seen.Store(int64(len(idx.log)))
}

// catchUp applies the log entries made since the last call. Callers that
// run in parallel see the same log, since the Index changes only between
// batches of predicate and score calls.
func (f *follower) catchUp(apply func(*Pod, int64)) {
	if f.idx == nil { // a state whose pod does not parse
		return
	}
	n := int64(len(f.idx.log))
	if f.seen.Load() == n {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := f.seen.Load(); i < n; i++ {
		c := f.idx.log[i]
		apply(c.pod, c.delta)
	}
	f.seen.Store(n)
}
