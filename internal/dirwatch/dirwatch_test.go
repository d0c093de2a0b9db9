package dirwatch

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// An event is stamped when it arrives, not when Watch, busy in Settled,
// gets to it; the stamping stops when the events end.
func TestEventsAreStampedOnArrival(t *testing.T) {
	in := make(chan fsnotify.Event)
	out := stampEvents(context.Background(), in)
	sent := time.Now()
	in <- fsnotify.Event{Name: "policy.wasm", Op: fsnotify.Create}
	time.Sleep(time.Second) // a reload under way
	ev := <-out
	if ev.Name != "policy.wasm" || ev.at.Before(sent) || ev.at.Sub(sent) >= time.Second {
		t.Fatalf("event %v stamped %v after it was sent, want its name and a stamp from before the reload ended", ev.Event, ev.at.Sub(sent))
	}
	close(in)
	if _, ok := <-out; ok {
		t.Fatal("stamped events go on after the watcher's events ended")
	}
}

// A directory removed and created again is watched again at the next
// resync: a file written into it afterwards is seen, as an event.
func TestRecreatedDirectoryIsWatchedAgain(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "volume")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "reservations.jsonl")
	settled := make(chan struct{}, 16)
	resynced := make(chan struct{}, 16)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{
			Dirs: []string{dir}, Debounce: 10 * time.Millisecond, Resync: 50 * time.Millisecond,
			Relevant: func(path string) bool { return path == file },
			Settled: func(context.Context, time.Time, bool) bool {
				settled <- struct{}{}
				return false
			},
			Resynced: func(context.Context, bool) {
				select {
				case resynced <- struct{}{}:
				default:
				}
			},
		})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	<-resynced // the watch is set up
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for range 3 { // at least one resync after the directory came back
		<-resynced
	}
	if err := os.WriteFile(file, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case <-settled:
	case <-time.After(10 * time.Second):
		t.Fatal("no event from the recreated directory")
	}
}

// With a first look, Settled is first called after FirstLook of quiet,
// early; when it asks again, the next call comes once the directory has
// been quiet for Debounce, not early, and a new event starts over with a
// first look.
func TestFirstLookThenDebounce(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "policy.wasm")
	type call struct {
		early bool
		after time.Duration // since the last write
	}
	calls := make(chan call, 16)
	var wrote atomic.Int64 // UnixNano of the last write
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	ready := make(chan struct{})
	go func() {
		done <- Run(ctx, Options{
			Dirs: []string{dir}, FirstLook: 20 * time.Millisecond, Debounce: 400 * time.Millisecond, Resync: time.Hour,
			Relevant: func(path string) bool { return path == file },
			Settled: func(_ context.Context, _ time.Time, early bool) bool {
				calls <- call{early, time.Since(time.Unix(0, wrote.Load()))}
				return early // ask again after a first look
			},
			Resynced: func(context.Context, bool) {},
		})
	}()
	go func() { time.Sleep(100 * time.Millisecond); close(ready) }() // the watch is set up
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	<-ready
	for round := range 2 {
		wrote.Store(time.Now().UnixNano())
		if err := os.WriteFile(file, []byte{byte(round)}, 0o644); err != nil {
			t.Fatal(err)
		}
		first, second := <-calls, <-calls
		if !first.early || first.after >= 300*time.Millisecond {
			t.Errorf("round %d: first call %+v, want early and well before the debounce", round, first)
		}
		if second.early || second.after < 400*time.Millisecond {
			t.Errorf("round %d: second call %+v, want not early and after the debounce", round, second)
		}
	}
}
