package dirwatch

import (
	"context"
	"os"
	"path/filepath"
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
			Settled: func(context.Context, time.Time) bool {
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
