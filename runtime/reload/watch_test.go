package reload

import (
	"context"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// An event is stamped when it arrives, not when Watch, busy with a reload,
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
