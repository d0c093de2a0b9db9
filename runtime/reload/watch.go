package reload

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
	"k8s.io/klog/v2"
)

// Watch reloads the policy whenever its files change, until ctx is done.
// It watches the directories holding them rather than the files: an editor
// saves by writing a new file and renaming it over the old one, and a
// Kubernetes ConfigMap volume updates by swapping its ..data link, and
// either would leave a watch on the old file's inode blind. A change is
// read once the directories have been quiet for Options.Debounce, so that
// a module still being copied is not read half-written; the files are also
// re-read every Options.Resync in case events were lost.
func (r *Reloader) Watch(ctx context.Context) error {
	dirs := r.dirs()
	if len(dirs) == 0 {
		<-ctx.Done()
		return nil
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watching %s: %w", strings.Join(dirs, ", "), err)
	}
	defer w.Close()
	for _, d := range dirs {
		if err := w.Add(d); err != nil {
			return fmt.Errorf("watching %s: %w", d, err)
		}
	}
	klog.InfoS("Watching for policy changes", "dirs", dirs, "debounce", r.opts.Debounce)
	if r.warm != nil {
		warmCtx, stop := context.WithCancel(ctx)
		stopped := make(chan struct{})
		go func() {
			defer close(stopped)
			r.warm.run(warmCtx)
		}()
		defer func() {
			stop()
			<-stopped // its compiles given back
		}()
	}
	quiet := time.NewTimer(time.Hour)
	quiet.Stop()
	resync := time.NewTicker(r.opts.Resync)
	defer resync.Stop()
	// since is when the first change of the pending burst was seen; zero
	// when none is pending.
	var since time.Time
	changed := func(at time.Time) {
		if since.IsZero() || at.Before(since) {
			since = at
		}
		quiet.Reset(r.opts.Debounce)
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
			if r.relevant(ev.Name) {
				klog.V(4).InfoS("Policy file event", "event", ev.String())
				changed(ev.at)
				r.warm.changed()
			}
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			klog.ErrorS(err, "Watching the policy files", "dirs", dirs)
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				changed(time.Now()) // events were lost: read everything again
				r.warm.changed()
			}
		case <-quiet.C:
			if out := r.reload(ctx, since); out.Superseded {
				quiet.Reset(r.opts.Debounce)
				continue
			}
			since = time.Time{}
		case <-resync.C:
			// A directory that was removed and created again has lost its
			// watch; adding it again is harmless otherwise.
			for _, d := range dirs {
				if err := w.Add(d); err != nil {
					klog.V(2).InfoS("Cannot watch a policy directory", "dir", d, "err", err)
				}
			}
			if since.IsZero() {
				r.reload(ctx, time.Now())
			}
		}
	}
}

// stampedEvent is a file event and when it arrived.
type stampedEvent struct {
	fsnotify.Event
	at time.Time
}

// stampEvents timestamps events as they arrive, while Watch may be busy
// with a reload: a change that lands during a reload of several seconds is
// timed from its arrival (the reload latency metric), not from when the
// reload ended.
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

// dirs lists the directories holding the policy's files.
func (r *Reloader) dirs() []string {
	var dirs []string
	if r.opts.ConfigPath != "" {
		dirs = append(dirs, filepath.Dir(r.opts.ConfigPath))
	}
	if d := r.opts.PluginDir; d != "" && (len(dirs) == 0 || dirs[0] != d) {
		dirs = append(dirs, d)
	}
	return dirs
}

// relevant reports whether an event on path may change the policy: the
// configuration file, a module, or a ConfigMap's ..data link and folders
// (names starting with ".."), which carry every key's update at once.
// Editors' swap and backup files are not.
func (r *Reloader) relevant(path string) bool {
	dir, base := filepath.Split(filepath.Clean(path))
	dir = filepath.Clean(dir)
	switch {
	case strings.HasPrefix(base, ".."):
		return true
	case r.opts.ConfigPath != "" && filepath.Join(dir, base) == r.opts.ConfigPath:
		return true
	case dir == r.opts.PluginDir && isModuleFile(base):
		return true
	}
	return false
}
