package reload

import (
	"context"
	"crypto/sha256"
	"fmt"
	"maps"
	"slices"
	"sort"
	"sync"
	"time"

	"k8s.io/klog/v2"

	"github.com/caldera-scheduler/caldera/runtime"
	"github.com/caldera-scheduler/caldera/scheduler"
	"github.com/caldera-scheduler/caldera/scheduler/conf"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
	"github.com/caldera-scheduler/caldera/scheduler/metrics"
)

// candidate is a policy being built from a snapshot. It holds a reference
// on every module it resolves; discard gives them back, and so does the
// published policy's Retire.
type candidate struct {
	r    *Reloader
	ctx  context.Context
	snap *snapshot
	// selfTest runs the self-test session on every module loaded.
	selfTest bool

	mu   sync.Mutex
	mods map[string]*module
	// loadTimes holds, for modules loaded (not reused) by this candidate,
	// the time to compile, instantiate and self-test them.
	loadTimes map[string]time.Duration
	// fault is the first module that failed, so that the failure names
	// the module's file rather than the configuration line naming it.
	fault *Outcome
	// images are the tier entries' wasm.image references, by plugin.
	images map[string]string
}

// build makes a policy from the snapshot: native plugins, one plugin per
// module file (plus the modules in service whose file is gone), and the
// configuration validated against them.
func (r *Reloader) build(ctx context.Context, snap *snapshot, selfTest bool) (*candidate, *scheduler.Policy, error) {
	c := &candidate{r: r, ctx: ctx, snap: snap, selfTest: selfTest, mods: map[string]*module{}, loadTimes: map[string]time.Duration{}, images: imageEntries(snap.config, r.opts.ConfigPath)}
	if snap.err != nil {
		return c, nil, snap.err
	}
	reg := r.opts.Native()
	names := make([]string, 0, len(snap.modules))
	for name := range snap.modules {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if _, native := reg[name]; native {
			err := fmt.Errorf("plugin %q is both a native plugin and %s: rename the file", name, snap.modules[name].path)
			c.fault = &Outcome{Err: err, Plugin: name, File: snap.modules[name].path}
			return c, nil, err
		}
		reg[name] = c.factory(name)
	}
	for _, name := range slices.Sorted(maps.Keys(c.images)) {
		image := c.images[name]
		if f, ok := snap.modules[name]; ok {
			err := fmt.Errorf("plugin %q is both wasm.image %s and the file %s: remove one", name, image, f.path)
			c.fault = &Outcome{Err: err, Plugin: name, File: r.opts.ConfigPath}
			return c, nil, err
		}
		if _, native := reg[name]; native {
			err := fmt.Errorf("plugin %q is a native plugin; wasm.image %s names a module for a Wasm plugin: give the entry another name", name, image)
			c.fault = &Outcome{Err: err, Plugin: name, File: r.opts.ConfigPath}
			return c, nil, err
		}
		reg[name] = c.factory(name)
	}
	for name := range r.modules {
		if _, ok := reg[name]; !ok {
			reg[name] = c.factory(name) // the file is gone: see resolve
		}
	}
	v := framework.Validator{Plugins: reg, Actions: r.opts.Actions}
	var cfg *conf.Config
	var err error
	if r.opts.ConfigPath == "" {
		cfg, err = conf.Default(v)
	} else {
		cfg, err = conf.Parse(snap.config, r.opts.ConfigPath, v)
	}
	if err != nil {
		return c, nil, err
	}
	// The policy's factories outlive the build: let go of the files' bytes.
	c.snap = nil
	mods := c.modules()
	versions := make(map[string]string, len(mods))
	var images map[string]string
	for _, m := range mods {
		versions[m.name] = m.digest
		if m.image != "" {
			if images == nil {
				images = map[string]string{}
			}
			images[m.name] = m.image
		}
	}
	p := &scheduler.Policy{Plugins: reg, Config: cfg, Versions: versions, Images: images, Retire: func() { r.release(mods) }}
	return c, p, nil
}

// factory serves plugin name from the module resolve picks, resolved on
// the first call: configuration validation, on the reloader's goroutine.
// Sessions only call factories of validated policies, which never load.
func (c *candidate) factory(name string) framework.Factory {
	var (
		once   sync.Once
		mod    *module
		policy runtime.Policy
		err    error
	)
	return func(args framework.Arguments) (framework.Plugin, error) {
		once.Do(func() {
			if c.snap == nil {
				err = fmt.Errorf("plugin %q was not named by the configuration this policy was validated with", name)
				return
			}
			var opts runtime.Options
			// Bad wasm.* arguments are the configuration's fault, which
			// the parser reports with its file and line.
			if opts, policy, err = sandbox(name, args); err != nil {
				return
			}
			if mod, err = c.resolve(name, opts, args); err != nil {
				c.mu.Lock()
				if c.fault == nil {
					file := c.path(name)
					if refused, ok := err.(argumentsRefused); ok {
						file = refused.config
					}
					c.fault = &Outcome{Err: err, Plugin: name, File: file}
				}
				c.mu.Unlock()
			}
		})
		if err != nil {
			return nil, err
		}
		return runtime.Factory(name, mod.plugin, policy)(args)
	}
}

func (c *candidate) path(name string) string {
	if image, ok := c.images[name]; ok {
		return image
	}
	if f, ok := c.snap.modules[name]; ok {
		return f.path
	}
	if m := c.r.modules[name]; m != nil {
		return m.path
	}
	return ""
}

// resolve picks the module serving plugin name: the one in service when
// its file, sandbox limits and arguments are unchanged, or when its file
// is gone while the configuration still names it with the same limits and
// arguments; otherwise the file, loaded, checked and self-tested with the
// tier entry's arguments. New arguments are tried on a fresh instance of
// the module rather than given to the one in service, which is only known
// to work with its own.
func (c *candidate) resolve(name string, opts runtime.Options, args framework.Arguments) (*module, error) {
	opts.Cache = c.r.opts.Cache
	cur := c.r.modules[name]
	f, present := c.snap.modules[name]
	if image, ok := c.images[name]; ok {
		if cur != nil && cur.image != "" && cur.image == c.pinned(image) && (opts.SHA256 == "" || opts.SHA256 == cur.digest) && cur.takes(opts.Limits, args) {
			// The module in service is that image: nothing to pull,
			// although its blobs may have left the cache since.
			c.use(cur)
			return cur, nil
		}
		pulled, err := c.pull(name, image)
		if err != nil {
			return nil, err
		}
		f, present = pulled, true
	}
	switch {
	case !present && cur != nil && cur.image != "":
		return nil, fmt.Errorf("plugin %s names no wasm.image any more and there is no file for it in the plugin directory; the module in service came from %s", name, cur.image)
	case !present && cur == nil:
		return nil, fmt.Errorf("no module for plugin %s", name)
	case !present:
		if opts.SHA256 != "" && opts.SHA256 != cur.digest {
			return nil, fmt.Errorf("%s is gone, and the module in service, sha256:%s, is not the one the configuration pins, sha256:%s", cur.path, cur.digest, opts.SHA256)
		}
		if !cur.takes(opts.Limits, args) {
			return nil, fmt.Errorf("%s is gone: the module in service, sha256:%s, cannot be tried with the configuration's new arguments without its file; put the file back or leave the arguments as they were", cur.path, cur.digest)
		}
		klog.InfoS("Warning: the module file is gone but the configuration still names the plugin; the last good version keeps serving",
			"plugin", name, "file", cur.path, "sha256", cur.digest)
		c.use(cur)
		return cur, nil
	case f.err != nil:
		return nil, fmt.Errorf("%s: %w", f.path, f.err)
	case opts.SHA256 != "" && opts.SHA256 != f.digest:
		return nil, fmt.Errorf("%s: module digest is sha256:%s, the configuration pins sha256:%s", f.path, f.digest, opts.SHA256)
	case cur != nil && cur.digest == f.digest && cur.takes(opts.Limits, args):
		c.use(cur)
		return cur, nil
	}
	start := time.Now()
	c.r.warm.await(c.ctx, f.digest) // then the load finds it compiled
	p, err := runtime.LoadBytes(c.ctx, f.code, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.path, err)
	}
	m := &module{name: name, path: f.path, digest: p.SHA256(), image: f.image, plugin: p, limits: opts.Limits, args: args}
	c.r.mu.Lock()
	c.r.live++
	c.r.mu.Unlock()
	c.use(m) // from here on, discard closes it
	if err := CheckHooks(p); err != nil {
		return nil, fmt.Errorf("%s: %w", f.path, err)
	}
	if c.selfTest {
		if _, err := SelfTest(name, p, args, c.r.opts.Native(), c.r.opts.Actions); err != nil {
			if cur != nil && cur.digest == f.digest {
				// The module is the one in service: the configuration's
				// new arguments are what failed.
				return nil, argumentsRefused{config: c.r.opts.ConfigPath, err: fmt.Errorf("%s: the new arguments of plugin %s (its module %s is unchanged): %w", c.r.opts.ConfigPath, name, f.path, err)}
			}
			return nil, fmt.Errorf("%s: %w", f.path, err)
		}
	}
	c.mu.Lock()
	c.loadTimes[name] = time.Since(start)
	c.mu.Unlock()
	return m, nil
}

// argumentsRefused is a self-test failure of a module in service under the
// configuration's new arguments: the configuration file is at fault.
type argumentsRefused struct {
	config string
	err    error
}

func (e argumentsRefused) Error() string { return e.err.Error() }
func (e argumentsRefused) Unwrap() error { return e.err }

func (c *candidate) use(m *module) {
	c.r.hold(m)
	c.mu.Lock()
	c.mods[m.name] = m
	c.mu.Unlock()
}

// modules lists the resolved modules.
func (c *candidate) modules() []*module {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]*module, 0, len(c.mods))
	for _, m := range c.mods {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// discard gives back the candidate's references: modules it loaded are
// closed, modules in service are untouched.
func (c *candidate) discard() { c.r.release(c.modules()) }

// configDigest identifies the configuration's content.
func configDigest(data []byte) [32]byte { return sha256.Sum256(data) }

// imageEntries returns the plugins whose tier entry names wasm.image, with
// the reference: read from the configuration before it is validated,
// since validation needs every plugin's factory. A configuration that does
// not parse names none here; validation then reports why.
func imageEntries(config []byte, source string) map[string]string {
	out := map[string]string{}
	if config == nil {
		return out
	}
	cfg, err := conf.Parse(config, source, nil)
	if err != nil {
		return out
	}
	for _, t := range cfg.Tiers {
		for _, p := range t.Plugins {
			if image, ok := p.Arguments[argImage].(string); ok {
				out[p.Name] = image
			}
		}
	}
	return out
}

// pinned returns image pinned by digest when that is known without asking
// a registry: the reference's own digest, or what its tag resolved to in
// this process. Otherwise "".
func (c *candidate) pinned(image string) string {
	if c.r.opts.Images == nil {
		return ""
	}
	return c.r.opts.Images.Pinned(image)
}

// pull fetches a tier entry's wasm.image, from the cache when it is there.
func (c *candidate) pull(name, image string) (moduleFile, error) {
	if c.r.opts.Images == nil {
		return moduleFile{}, fmt.Errorf("plugin %s: wasm.image %s: this command does not pull modules from registries", name, image)
	}
	got, err := c.r.opts.Images.Pull(c.ctx, image)
	if err != nil {
		metrics.ModulePulls.WithLabelValues(name, "failed").Inc()
		return moduleFile{}, fmt.Errorf("plugin %s: wasm.image: %w", name, err)
	}
	from := "cache"
	if got.FromRegistry {
		from = "registry"
		klog.InfoS("Pulled Wasm module", "plugin", name, "image", got.Image, "bytes", len(got.Code))
	}
	metrics.ModulePulls.WithLabelValues(name, from).Inc()
	return moduleFile{path: got.Image, digest: contentDigest(got.Code), code: got.Code, image: got.Image}, nil
}
