// Package dirwatch follows files through the directories that hold them:
// the one loop behind the policy reloader and the external-reservations
// informer.
//
// It watches directories rather than files: an editor saves by writing a
// new file and renaming it over the old one, and a Kubernetes ConfigMap
// volume updates by swapping its ..data link, and either would leave a
// watch on the old file's inode blind. A change is acted on once the
// directories have been quiet for Debounce, so that a file still being
// copied is not read half-written; every Resync the directories are
// watched again (one removed and created again has lost its watch) and the
// owner may read everything again, in case events were lost. With
// FirstLook, the owner looks earlier, after that much quiet, and may ask to
// be asked again once the full Debounce has passed: a module dropped in by
// a rename is whole at once, and need not wait for a slow copy's pace.
package dirwatch

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Options say what to watch and what to do.
type Options struct {
	Dirs             []string
	Debounce, Resync time.Duration
	// FirstLook, when shorter than Debounce, is the quiet after which
	// Settled is first called for a burst of events, with early true; if
	// it asks again, the next call comes once the directories have been
	// quiet for Debounce. Zero: Settled waits for Debounce.
	FirstLook time.Duration
	// Unsettled says whether a file may look whole before it is (a YAML
	// file cut short can parse): a burst with an event on one waits for
	// Debounce, without a first look. Nil: none.
	Unsettled func(path string) bool
	// Relevant says whether an event on path may change what the owner
	// reads; others are ignored.
	Relevant func(path string) bool
	// Seen is called for each relevant event as it arrives (optional).
	Seen func(path string)
	// Settled is called once the directories have been quiet for
	// Debounce after relevant events (or FirstLook, early true); since is
	// when the first of them arrived (while Settled may be busy, events
	// are timed at arrival). It returns true to wait and call it again.
	Settled func(ctx context.Context, since time.Time, early bool) (again bool)
	// Resynced is called every Resync, after the directories are watched
	// again; pending says changes wait for their Debounce.
	Resynced func(ctx context.Context, pending bool)
	// Failed reports an error of the watch (optional); the loop goes on.
	Failed func(err error)
}

// Run follows the directories until ctx is done. It fails if the watch
// cannot be set up at all; a directory it cannot watch again at a resync
// is reported to Failed and tried again at the next.
func Run(ctx context.Context, o Options) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watching %s: %w", strings.Join(o.Dirs, ", "), err)
	}
	defer w.Close()
	for _, d := range o.Dirs {
		if err := w.Add(d); err != nil {
			return fmt.Errorf("watching %s: %w", d, err)
		}
	}
	quiet := time.NewTimer(time.Hour)
	quiet.Stop()
	resync := time.NewTicker(o.Resync)
	defer resync.Stop()
	var since time.Time // the first change of the pending burst; zero when none
	firstLook := o.FirstLook > 0 && o.FirstLook < o.Debounce
	// early says the pending call is the first look at a burst; unsettled
	// that the burst touched a file that gets none.
	early, unsettled := false, false
	changed := func(at time.Time, path string) {
		if since.IsZero() {
			unsettled = false
		}
		if since.IsZero() || at.Before(since) {
			since = at
		}
		unsettled = unsettled || o.Unsettled != nil && path != "" && o.Unsettled(path)
		early = firstLook && !unsettled
		if early {
			quiet.Reset(o.FirstLook)
			return
		}
		quiet.Reset(o.Debounce)
	}
	events := stampEvents(ctx, w.Events)
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-events:
			if !ok {
				return nil
			}
			if o.Relevant(ev.Name) {
				changed(ev.at, ev.Name)
				if o.Seen != nil {
					o.Seen(ev.Name)
				}
			}
		case err, ok := <-w.Errors: // unread errors would block the events
			if !ok {
				return nil
			}
			if o.Failed != nil {
				o.Failed(err)
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				changed(time.Now(), "") // events were lost: read everything again
				if o.Seen != nil {
					o.Seen("")
				}
			}
		case <-quiet.C:
			wasEarly := early
			early = false
			if o.Settled(ctx, since, wasEarly) {
				if wasEarly {
					// The rest of the Debounce: counted from the last
					// event, as without a first look.
					quiet.Reset(o.Debounce - o.FirstLook)
				} else {
					quiet.Reset(o.Debounce)
				}
				continue
			}
			since = time.Time{}
		case <-resync.C:
			for _, d := range o.Dirs {
				if err := w.Add(d); err != nil && o.Failed != nil {
					o.Failed(fmt.Errorf("watching %s again: %w", d, err))
				}
			}
			o.Resynced(ctx, !since.IsZero())
		}
	}
}

// stampedEvent is a file event and when it arrived.
type stampedEvent struct {
	fsnotify.Event
	at time.Time
}

// stampEvents timestamps events as they arrive, while the loop may be busy
// in Settled: a change that lands during a reload of several seconds is
// timed from its arrival, not from when the reload ended.
func stampEvents(ctx context.Context, in <-chan fsnotify.Event) <-chan stampedEvent {
	out := make(chan stampedEvent, 64)
	go func() {
		defer close(out)
		for ev := range in {
			select {
			case out <- stampedEvent{ev, time.Now()}:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}
