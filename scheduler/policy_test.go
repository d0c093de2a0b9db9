package scheduler

import (
	"sync"
	"sync/atomic"
	"testing"
)

func TestPolicyRetiresAfterItsLastSession(t *testing.T) {
	var retired atomic.Int32
	first := &Policy{Retire: func() { retired.Add(1) }}
	store := NewPolicyStore(first)

	session := store.Acquire()
	if session != first {
		t.Fatal("Acquire did not return the published policy")
	}
	second := &Policy{}
	store.Publish(second)
	if retired.Load() != 0 {
		t.Fatal("a policy was retired while a session was still running with it")
	}
	if got := store.Acquire(); got != second {
		t.Fatal("a session started after Publish did not get the new policy")
	} else {
		got.Release()
	}
	session.Release()
	if retired.Load() != 1 {
		t.Fatalf("retired %d times after its last session ended, want 1", retired.Load())
	}
}

func TestPolicyStoreUnderConcurrentSwaps(t *testing.T) {
	const swaps = 2000
	var retired, published atomic.Int64
	newPolicy := func() *Policy {
		published.Add(1)
		p := &Policy{}
		p.Retire = func() {
			if p.refs.Load() != 0 {
				t.Errorf("retired with %d references", p.refs.Load())
			}
			retired.Add(1)
		}
		return p
	}
	store := NewPolicyStore(newPolicy())
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				p := store.Acquire()
				if p.refs.Load() < 1 {
					t.Error("acquired a drained policy")
				}
				p.Release()
			}
		}()
	}
	for range swaps {
		store.Publish(newPolicy())
	}
	close(stop)
	wg.Wait()
	store.Close()
	if retired.Load() != published.Load() {
		t.Fatalf("%d of %d policies retired after the store closed", retired.Load(), published.Load())
	}
	if store.Acquire() != nil {
		t.Fatal("a closed store handed out a policy")
	}
}
