package reload

import (
	"context"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/klog/v2"

	"github.com/caldera-scheduler/caldera/internal/dirwatch"
)

// Watch reloads the policy whenever its files change, until ctx is done:
// once the directories holding them have been quiet for Options.Debounce,
// and every Options.Resync in case events were lost (internal/dirwatch).
func (r *Reloader) Watch(ctx context.Context) error {
	dirs := r.dirs()
	if len(dirs) == 0 {
		<-ctx.Done()
		return nil
	}
	klog.InfoS("Watching for policy changes", "dirs", dirs, "debounce", r.opts.Debounce)
	r.reloading.Lock()
	r.watchCtx = ctx
	r.reloading.Unlock()
	defer r.stopRetries()
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
	return dirwatch.Run(ctx, dirwatch.Options{
		Dirs:      dirs,
		Debounce:  r.opts.Debounce,
		FirstLook: r.opts.FirstLook,
		Resync:    r.opts.Resync,
		Relevant:  r.relevant,
		// An edited configuration file gets no first look: a YAML file cut
		// short can still parse. A ConfigMap's link swap is whole at once
		// and comes as events on its ..data link; a module cut short never
		// loads, so its first look is safe.
		Unsettled: func(path string) bool {
			return r.opts.ConfigPath != "" && filepath.Clean(path) == r.opts.ConfigPath
		},
		Seen: func(path string) {
			klog.V(4).InfoS("Policy file event", "path", path)
			r.warm.changed()
		},
		Settled: func(ctx context.Context, since time.Time, early bool) bool {
			return r.reload(ctx, since, early).Superseded
		},
		Resynced: func(ctx context.Context, pending bool) {
			if !pending {
				r.reload(ctx, time.Now(), false)
			}
		},
		Failed: func(err error) { klog.ErrorS(err, "Watching the policy files", "dirs", dirs) },
	})
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
