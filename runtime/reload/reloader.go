package reload

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/tetratelabs/wazero"
	"k8s.io/klog/v2"

	"github.com/caldera-scheduler/caldera/runtime"
	"github.com/caldera-scheduler/caldera/runtime/ocimodule"
	"github.com/caldera-scheduler/caldera/scheduler"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Defaults of Options.
const (
	// DefaultDebounce waits out the bursts of events one save makes (an
	// editor's write and rename, a ConfigMap's link swap, a copy of a large
	// module) without making a dropped module wait noticeably.
	DefaultDebounce = 200 * time.Millisecond
	// DefaultFirstLook is how long the directories must be quiet before
	// the files are first read: a module renamed into the directory is
	// whole at once and goes into service without waiting for the
	// debounce; one that does not load yet is judged after the debounce.
	DefaultFirstLook = 20 * time.Millisecond
	// DefaultResync re-reads the files although no event came: a safety
	// net for file systems whose events are lost or never sent.
	DefaultResync = time.Minute
)

// Options configure a Reloader.
type Options struct {
	// ConfigPath is the scheduler configuration file; empty means
	// Volcano's default configuration, which never changes.
	ConfigPath string
	// PluginDir holds the .wasm modules, one plugin per DIR/<name>.wasm;
	// empty means no Wasm plugins.
	PluginDir string
	// Native returns a new registry of the native plugins; each policy
	// gets its own.
	Native func() framework.Registry
	// Actions is the action registry.
	Actions framework.ActionRegistry
	// Cache is shared by every module load; nil compiles without one.
	Cache wazero.CompilationCache
	// Debounce is how long the watched directories must stay quiet before
	// a change is read (DefaultDebounce when zero).
	Debounce time.Duration
	// FirstLook is how long the directories must be quiet before the
	// files are first read (DefaultFirstLook when zero; a negative value
	// or one not below Debounce waits for the Debounce).
	FirstLook time.Duration
	// Resync is the period of a re-read without events (DefaultResync
	// when zero).
	Resync time.Duration
	// Report, if set, receives every reload that changed the policy or
	// failed, after it has been logged and counted in the metrics.
	Report func(Outcome)
	// Images pulls the modules tier entries name by wasm.image; nil
	// refuses such entries.
	Images *ocimodule.Puller
	// SkipInitialSelfTest loads the first policy without self-testing its
	// modules, for a one-shot simulation, which exercises them anyway and
	// reports their failures itself. Reloads always self-test.
	SkipInitialSelfTest bool
}

// Reloader builds the scheduler's policy from its files and publishes a
// new one whenever they change and the change passes every check.
type Reloader struct {
	opts  Options
	store *scheduler.PolicyStore

	// mu guards the modules' reference counts and live.
	mu   sync.Mutex
	live int

	// reloading serializes reloads; it guards the fields below.
	reloading sync.Mutex
	// modules are the modules of the published policy, by plugin name.
	modules map[string]*module
	// config is the digest of the published configuration's text.
	config [32]byte
	// tried is the fingerprint of the last snapshot built, published or
	// refused: the same files are not tried twice, unless retry is set.
	tried string
	// retry is set when the files of tried were refused for a cause that
	// may pass (a call that missed its deadline on a busy machine): the
	// next look at them, an event's or the periodic re-read's, tries them
	// once more.
	retry bool

	// warm compiles changed modules while Watch waits out the debounce;
	// nil without a plugin directory or a compilation cache.
	warm *warmer

	// A reload refused because a registry did not answer is tried again
	// after backoff (doubling up to maxPullBackoff) while Watch runs:
	// watchCtx is Watch's, retryTimer the pending try, retries counts
	// tries scheduled or running, for Watch to wait on. Guarded by
	// reloading.
	watchCtx   context.Context
	backoff    time.Duration
	retryTimer *time.Timer
	retries    sync.WaitGroup
}

// Backoff of a reload refused because a registry did not answer.
const (
	firstPullBackoff = time.Second
	maxPullBackoff   = 5 * time.Minute
)

// New loads the policy from the files. A broken configuration or module is
// an error here: at start there is no previous version to keep serving.
func New(ctx context.Context, opts Options) (*Reloader, error) {
	if opts.FirstLook == 0 {
		opts.FirstLook = DefaultFirstLook
	}
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	if opts.Resync <= 0 {
		opts.Resync = DefaultResync
	}
	// Events name files by the path that was watched: compare clean,
	// absolute paths.
	for _, p := range []*string{&opts.ConfigPath, &opts.PluginDir} {
		if *p != "" {
			abs, err := filepath.Abs(*p)
			if err != nil {
				return nil, err
			}
			*p = abs
		}
	}
	r := &Reloader{opts: opts, modules: map[string]*module{}}
	if opts.PluginDir != "" && opts.Cache != nil {
		r.warm = newWarmer(opts.PluginDir, runtime.Options{Cache: opts.Cache, Limits: runtime.DefaultLimits()})
	}
	snap := r.readSnapshot()
	c, p, err := r.build(ctx, snap, !opts.SkipInitialSelfTest)
	if err != nil {
		c.discard()
		if c.fault != nil && c.fault.Err != nil {
			err = c.fault.Err
		}
		return nil, err
	}
	r.store = scheduler.NewPolicyStore(p)
	r.adopt(c, snap)
	r.warm.readBy(r.readDigests(snap)) // the modules in service need no compile
	for _, m := range c.modules() {
		klog.InfoS("Loaded Wasm plugin", "plugin", m.name, "file", m.path, "sha256", m.digest,
			"abi", m.plugin.Version().String(), "hooks", m.plugin.Descriptor().Hooks, "took", c.loadTimes[m.name])
		setModuleGauge(m.name, "", m.digest)
	}
	return r, nil
}

// Policies returns the store the scheduler's sessions take the policy
// from.
func (r *Reloader) Policies() *scheduler.PolicyStore { return r.store }

// CompilationCache is the cache the reloader compiles modules with, for
// other modules of the same process (an event handler) to share.
func (r *Reloader) CompilationCache() wazero.CompilationCache { return r.opts.Cache }

// Close retires the policy in service: its modules are closed once its
// last session, if one is running, ends.
func (r *Reloader) Close() {
	r.reloading.Lock()
	defer r.reloading.Unlock()
	r.store.Close()
	for name, m := range r.modules {
		setModuleGauge(name, m.digest, "")
	}
	r.modules = map[string]*module{}
}

// adopt records a published candidate as the policy in service.
func (r *Reloader) adopt(c *candidate, snap *snapshot) {
	r.modules = map[string]*module{}
	for _, m := range c.modules() {
		m.served = true
		r.modules[m.name] = m
	}
	r.config = configDigest(snap.config)
	r.tried = snap.fingerprint
}

// Reload reads the files now and publishes the policy they make if it
// differs from the one in service and passes every check. Watch calls it
// after each quiet period; tests and tools may call it directly.
func (r *Reloader) Reload(ctx context.Context) Outcome { return r.reload(ctx, time.Now(), false) }

// reload is Reload for a change first seen at since.
//
// early says the files have been quiet only for the watch's first look: a
// policy that does not load then is not judged (the module may still be
// being copied) but checked again once they have been quiet for the
// debounce (Outcome.Superseded).
func (r *Reloader) reload(ctx context.Context, since time.Time, early bool) Outcome {
	r.reloading.Lock()
	defer r.reloading.Unlock()
	if r.store.Current() == nil {
		return Outcome{Err: fmt.Errorf("the reloader is closed")}
	}
	start := time.Now()
	snap := r.readSnapshot()
	defer func() { r.warm.readBy(r.readDigests(snap)) }()
	retrying := snap.fingerprint == r.tried
	if retrying && !r.retry {
		return Outcome{}
	}
	out := r.apply(ctx, snap)
	out.Took = time.Since(start)
	if out.Err != nil && ctx.Err() != nil {
		// Stopping, or the caller gave up: a load cut short says nothing
		// about the files, which the next reload judges.
		klog.V(2).InfoS("Policy reload cut short", "cause", out.Err)
		return Outcome{Err: fmt.Errorf("reload cut short, the files are not judged: %w", ctx.Err()), Took: out.Took}
	}
	if out.Err != nil && r.readSnapshot().fingerprint != snap.fingerprint {
		// The files changed while this version was checked: a module still
		// being copied, the second half of a save. Judge the newer files
		// instead of reporting a state that no longer exists.
		out.Superseded = true
		klog.V(2).InfoS("Policy files changed while being checked; checking them again", "cause", out.Err)
		return out
	}
	if out.Err != nil && early {
		out.Superseded = true
		klog.V(2).InfoS("Policy files do not load yet; checking them again once they have been quiet for the debounce", "cause", out.Err)
		return out
	}
	r.tried = snap.fingerprint
	pull := out.Err != nil && ocimodule.Retryable(out.Err)
	r.retry = pull || out.Err != nil && mayPass(out.Err) && !(retrying && r.retry)
	r.record(out, since)
	r.retryPull(pull)
	return out
}

// retryPull schedules the next try of a reload a registry failed, or
// resets the backoff after any other outcome; r.reloading held.
func (r *Reloader) retryPull(failed bool) {
	if !failed {
		r.backoff = 0
		return
	}
	if r.watchCtx == nil || r.watchCtx.Err() != nil {
		return
	}
	r.backoff = min(max(2*r.backoff, firstPullBackoff), maxPullBackoff)
	if r.retryTimer != nil && r.retryTimer.Stop() {
		r.retries.Done()
	}
	ctx := r.watchCtx
	klog.InfoS("A registry did not answer; the reload is tried again", "in", r.backoff)
	r.retries.Add(1)
	r.retryTimer = time.AfterFunc(r.backoff, func() {
		defer r.retries.Done()
		if ctx.Err() == nil {
			r.reload(ctx, time.Now(), false)
		}
	})
}

// stopRetries cancels a scheduled try and waits for one under way.
func (r *Reloader) stopRetries() {
	r.reloading.Lock()
	if r.retryTimer != nil && r.retryTimer.Stop() {
		r.retries.Done()
	}
	r.watchCtx, r.retryTimer = nil, nil
	r.reloading.Unlock()
	r.retries.Wait()
}

// mayPass reports whether a refusal's cause may not recur with the same
// files: a self-test call or instantiation that missed its deadline while
// the machine was busy.
func mayPass(err error) bool {
	return errors.Is(err, runtime.ErrTimeout) || errors.Is(err, context.DeadlineExceeded)
}

// apply builds a candidate from the snapshot and publishes it if it
// changes anything.
func (r *Reloader) apply(ctx context.Context, snap *snapshot) Outcome {
	c, p, err := r.build(ctx, snap, true)
	if err != nil {
		c.discard()
		out := Outcome{Err: err, File: r.opts.ConfigPath}
		if snap.err != nil {
			out.File = snap.errPath
		}
		if c.fault != nil {
			out.Plugin, out.File = c.fault.Plugin, c.fault.File
			if c.fault.Err != nil {
				out.Err = c.fault.Err
			}
		}
		return out
	}
	changes := r.changes(c, snap)
	if len(changes) == 0 {
		c.discard()
		return Outcome{}
	}
	// Said before the swap: the swap may unload the replaced modules at
	// once, and their log lines should follow.
	logChanges(changes)
	old := r.modules
	r.store.Publish(p)
	r.adopt(c, snap)
	for name, m := range r.modules {
		if o := old[name]; o != m {
			setModuleGauge(name, digestOf(o), m.digest)
		}
	}
	for name, o := range old {
		if r.modules[name] == nil {
			setModuleGauge(name, o.digest, "")
		}
	}
	return Outcome{Changes: changes}
}

// readDigests returns the digests of the snapshot's modules and of those
// in service; r.reloading held.
func (r *Reloader) readDigests(snap *snapshot) map[string]bool {
	out := make(map[string]bool, len(snap.modules)+len(r.modules))
	for _, f := range snap.modules {
		out[f.digest] = true
	}
	for _, m := range r.modules {
		out[m.digest] = true
	}
	return out
}

// changes lists what the candidate changes against the policy in service.
func (r *Reloader) changes(c *candidate, snap *snapshot) []Change {
	var out []Change
	if configDigest(snap.config) != r.config {
		out = append(out, Change{File: r.opts.ConfigPath})
	}
	mods := c.modules()
	seen := map[string]bool{}
	for _, m := range mods {
		seen[m.name] = true
		o := r.modules[m.name]
		if o == m {
			continue
		}
		out = append(out, Change{Plugin: m.name, File: m.path, OldSHA256: digestOf(o), NewSHA256: m.digest, LoadTime: c.loadTimes[m.name]})
	}
	var removed []string
	for name := range r.modules {
		if !seen[name] {
			removed = append(removed, name)
		}
	}
	sort.Strings(removed)
	for _, name := range removed {
		o := r.modules[name]
		out = append(out, Change{Plugin: name, File: o.path, OldSHA256: o.digest})
	}
	return out
}

func digestOf(m *module) string {
	if m == nil {
		return ""
	}
	return m.digest
}
