package reservations

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/caldera-scheduler/caldera/internal/configfile"
	"github.com/caldera-scheduler/caldera/internal/dirwatch"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/cache"
	"github.com/caldera-scheduler/caldera/scheduler/metrics"
)

// Name is the informer's name in --event-handler-config.
const Name = "external-reservations"

// Config is the informer's config section.
type Config struct {
	// Path is the file of JSON lines.
	Path string `json:"path"`
	// Debounce is how long the file's directory must stay quiet before
	// the file is read again (default 100ms).
	Debounce duration `json:"debounce,omitempty"`
	// Resync is how often the file is read even without a change event
	// (default 30s), in case events were lost.
	Resync duration `json:"resync,omitempty"`
}

// duration reads "100ms"-style durations.
type duration struct{ time.Duration }

func (d *duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a duration such as \"500ms\" or \"1m\": %w", err)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration such as \"500ms\" or \"1m\"", s)
	}
	if v <= 0 {
		return fmt.Errorf("%s: must be positive", s)
	}
	d.Duration = v
	return nil
}

// Register adds the informer to a registry.
func Register(r *cache.Registry) { r.RegisterInformer(Name, New) }

// New reads the file once (a scheduler that cannot read its reservations
// would place pods on reserved resources, so this must succeed) and
// returns the informer.
func New(ic cache.InformerContext) (cache.CustomInformer, error) {
	cfg := Config{Debounce: duration{100 * time.Millisecond}, Resync: duration{30 * time.Second}}
	if _, err := configfile.Section(ic.Config, &cfg); err != nil {
		return cache.CustomInformer{}, fmt.Errorf("config: %w", err)
	}
	if cfg.Path == "" {
		return cache.CustomInformer{}, fmt.Errorf("config: path is required (the file of JSON lines)")
	}
	path, err := filepath.Abs(cfg.Path)
	if err != nil {
		return cache.CustomInformer{}, err
	}
	src := newSource(ic.Name, path)
	if _, err := src.read(); err != nil {
		return cache.CustomInformer{}, err
	}
	lw := &toolscache.ListWatch{ListWithContextFunc: src.list, WatchFuncWithContext: src.watch}
	inf := toolscache.NewSharedIndexInformer(lw, &api.ExternalReservation{}, 0, toolscache.Indexers{})
	return cache.CustomInformer{
		Kind:     cache.KindExternalReservation,
		Informer: &fileInformer{SharedIndexInformer: inf, src: src, cfg: cfg},
	}, nil
}

// fileInformer is the shared informer with the file's watch running beside
// it for as long as it runs.
type fileInformer struct {
	toolscache.SharedIndexInformer
	src *source
	cfg Config
}

func (f *fileInformer) Run(stop <-chan struct{}) {
	go f.follow(wait.ContextForChannel(stop))
	f.SharedIndexInformer.Run(stop)
}

// follow re-reads the file when its directory changes (the directory, not
// the file: editors rename over files and ConfigMap volumes swap a link),
// and every Resync, watching the directory again there if it was created
// anew (internal/dirwatch). Without a watch (no inotify instances left),
// the resync alone reads it.
func (f *fileInformer) follow(ctx context.Context) {
	base := filepath.Base(f.src.path)
	err := dirwatch.Run(ctx, dirwatch.Options{
		Dirs:     []string{filepath.Dir(f.src.path)},
		Debounce: f.cfg.Debounce.Duration,
		Resync:   f.cfg.Resync.Duration,
		Relevant: func(path string) bool {
			name := filepath.Base(path)
			return name == base || strings.HasPrefix(name, "..")
		},
		Settled:  func(context.Context, time.Time, bool) bool { f.reread(); return false },
		Resynced: func(context.Context, bool) { f.reread() },
		Failed: func(err error) {
			klog.ErrorS(err, "Watching the external reservations; reading the file again", "path", f.src.path)
		},
	})
	if err == nil {
		return
	}
	klog.ErrorS(err, "Cannot watch the external reservations; they are re-read every resync period", "path", f.src.path, "resync", f.cfg.Resync.Duration)
	resync := time.NewTicker(f.cfg.Resync.Duration)
	defer resync.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-resync.C:
			f.reread()
		}
	}
}

func (f *fileInformer) reread() {
	changed, err := f.src.read()
	if err != nil {
		metrics.CustomInformerErrors.WithLabelValues(f.src.name).Inc()
		klog.ErrorS(err, "Keeping the last good external reservations", "informer", f.src.name)
		return
	}
	if changed {
		klog.V(2).InfoS("External reservations changed", "informer", f.src.name, "path", f.src.path)
	}
}
