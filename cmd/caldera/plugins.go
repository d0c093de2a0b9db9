package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"
	"github.com/tetratelabs/wazero"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/klog/v2"

	"github.com/caldera-scheduler/caldera/hostplugins"
	"github.com/caldera-scheduler/caldera/runtime/cachedir"
	"github.com/caldera-scheduler/caldera/runtime/ocimodule"
	"github.com/caldera-scheduler/caldera/runtime/reload"
	"github.com/caldera-scheduler/caldera/scheduler/actions"
)

// addPolicyFlags adds the flags that say where the policy comes from and
// how changes to it are picked up. watch is the default of --watch.
func addPolicyFlags(f *pflag.FlagSet, watch bool) {
	f.String("scheduler-conf", "", "scheduler configuration file (default: Volcano's default configuration)")
	f.String("plugin-dir", "", "directory of .wasm policy modules; a tier entry <name> loads <name>.wasm (default: the folder of --scheduler-conf)")
	f.Bool("watch", watch, "reload the configuration and modules when their files change, keeping the running version when a new one is broken")
	f.Duration("watch-debounce", reload.DefaultDebounce, "how long the watched directories must stay quiet before files that did not load at the first look (20ms of quiet) are judged")
	addWasmCacheFlag(f)
	f.String("wasm-cache-max-size", defaultWasmCacheMaxSize, "the most --wasm-cache-dir may hold (a Kubernetes quantity): compiled modules and modules pulled from registries, the least recently used removed past it, at start and after each reload; 0 for no bound")
	addRegistryFlags(f)
}

// addRegistryFlags adds the flags that say how to reach the OCI registries
// tier entries' wasm.image (and caldera plugin push and pull) name.
func addRegistryFlags(f *pflag.FlagSet) {
	f.String("registry-config", "", "Docker config file with registry credentials, such as the .dockerconfigjson key of a kubernetes.io/dockerconfigjson Secret mounted in the pod; read at every pull (default: anonymous)")
	f.String("registry-ca-file", "", "PEM file of certificate authorities trusted for registries, beside the system's")
	f.Bool("registry-insecure-skip-tls-verify", false, "accept any registry TLS certificate (trying things out only; digests still guard the content)")
	f.Bool("registry-plain-http", false, "talk plain HTTP to registries instead of HTTPS")
}

// registryRemote reads the registry flags and checks the files they name.
func registryRemote(v *viper.Viper) (ocimodule.Remote, error) {
	r := ocimodule.Remote{
		CredentialsFile:    v.GetString("registry-config"),
		CAFile:             v.GetString("registry-ca-file"),
		InsecureSkipVerify: v.GetBool("registry-insecure-skip-tls-verify"),
		PlainHTTP:          v.GetBool("registry-plain-http"),
	}
	if err := r.Check(); err != nil {
		return r, fmt.Errorf("--registry-*: %w", err)
	}
	return r, nil
}

// addWasmCacheFlag adds --wasm-cache-dir, where compiled modules are kept
// so that a restart or a module seen before does not compile again.
func addWasmCacheFlag(f *pflag.FlagSet) {
	f.String("wasm-cache-dir", defaultWasmCacheDir(), "directory of compiled Wasm modules kept between runs; empty compiles in memory only")
}

// defaultWasmCacheMaxSize, the default of --wasm-cache-max-size, holds
// about 19 compiled Go-toolchain modules (10 MB each) or 170 TinyGo ones, and leaves room for a reload's new
// modules under the 256Mi emptyDir of deploy/caldera.yaml: the cache
// grows past the bound until the reload that wrote to it ends.
const defaultWasmCacheMaxSize = "192Mi"

// wasmCacheMaxSize reads --wasm-cache-max-size.
func wasmCacheMaxSize(v *viper.Viper) (int64, error) {
	text := v.GetString("wasm-cache-max-size")
	q, err := resource.ParseQuantity(text)
	if err != nil || q.Sign() < 0 {
		return 0, fmt.Errorf("--wasm-cache-max-size %q: want a size such as 192Mi or 1Gi, or 0 for no bound", text)
	}
	return q.Value(), nil
}

// pruneWasmCache keeps dir within max bytes; failing to costs only disk.
func pruneWasmCache(dir string, max int64) {
	if dir == "" || max <= 0 {
		return
	}
	p, err := cachedir.Prune(dir, max, time.Now())
	if err != nil {
		klog.InfoS("Warning: could not keep the Wasm compilation cache within its size", "dir", dir, "err", err)
	}
	if p.Files > 0 {
		klog.InfoS("Removed the oldest compiled modules from the Wasm compilation cache", "dir", dir, "files", p.Files, "freedBytes", p.Freed, "keptBytes", p.Kept, "maxBytes", max)
	}
}

// defaultWasmCacheDir is under the user's cache directory
// ($XDG_CACHE_HOME or ~/.cache on Linux), or "" when there is none.
func defaultWasmCacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "caldera", "wasm")
}

// compilationCache returns wazero's compilation cache, on disk in dir
// when dir is set and usable. A cache directory that cannot be created (a
// read-only file system) costs compile time, not the start.
func compilationCache(dir string) wazero.CompilationCache {
	if dir == "" {
		return wazero.NewCompilationCache()
	}
	c, err := wazero.NewCompilationCacheWithDir(dir)
	if err != nil {
		klog.InfoS("Warning: the Wasm compilation cache directory is not usable; modules are compiled at every start", "dir", dir, "err", err)
		return wazero.NewCompilationCache()
	}
	return c
}

// pluginDirFor returns --plugin-dir, or the folder of the configuration
// file, or "" when neither is given.
func pluginDirFor(flagDir, confPath string) string {
	if flagDir != "" {
		return flagDir
	}
	if confPath != "" {
		return filepath.Dir(confPath)
	}
	return ""
}

// newReloader loads the policy named by the flags: the native plugins, one
// plugin per DIR/<name>.wasm, and --scheduler-conf (or Volcano's default
// configuration) validated against them. report, if set, is told of every
// later reload. oneShot loads the policy for one simulation, which
// exercises its modules anyway: they are not self-tested first. The
// returned function closes the policy and then the compilation cache.
func newReloader(ctx context.Context, v *viper.Viper, oneShot bool, report func(reload.Outcome)) (*reload.Reloader, func(), error) {
	path := v.GetString("scheduler-conf")
	maxCache, err := wasmCacheMaxSize(v)
	if err != nil {
		return nil, nil, err
	}
	remote, err := registryRemote(v)
	if err != nil {
		return nil, nil, err
	}
	cacheDir := v.GetString("wasm-cache-dir")
	cache := compilationCache(cacheDir)
	// Every reload outcome follows compiles: of the modules it loaded, or
	// of those the warmer compiled ahead of it.
	reported := func(o reload.Outcome) {
		pruneWasmCache(cacheDir, maxCache)
		if report != nil {
			report(o)
		}
	}
	rl, err := reload.New(ctx, reload.Options{
		ConfigPath: path,
		PluginDir:  pluginDirFor(v.GetString("plugin-dir"), path),
		Native:     hostplugins.Registry,
		Actions:    actions.Registry(),
		Cache:      cache,
		Debounce:   v.GetDuration("watch-debounce"),
		Report:     reported,
		Images:     ocimodule.NewPuller(remote, ocimodule.NewStore(cacheDir)),

		SkipInitialSelfTest: oneShot,
	})
	if err != nil {
		_ = cache.Close(context.Background())
		return nil, nil, err
	}
	pruneWasmCache(cacheDir, maxCache)
	// The cache's engine holds compiled code until it is closed; in-process
	// callers (tests) run many commands.
	return rl, func() { rl.Close(); _ = cache.Close(context.Background()) }, nil
}

// watchPolicy runs the reloader's watch until ctx is done or stop is
// called; stop returns once the watch, a reload under way and the warmer's
// compiles have ended, so that closing the policy and its compilation
// cache after it cannot pull them from under a reload. Failing to watch
// (no inotify instances left, say) leaves the loaded policy serving.
func watchPolicy(ctx context.Context, rl *reload.Reloader) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := rl.Watch(ctx); err != nil {
			klog.ErrorS(err, "Hot reload is off: changes to the configuration and modules need a restart")
		}
	}()
	return func() {
		cancel()
		<-done
	}
}
