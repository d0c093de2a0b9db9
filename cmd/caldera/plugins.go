package main

import (
	"context"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"
	"github.com/tetratelabs/wazero"
	"k8s.io/klog/v2"

	"github.com/caldera-scheduler/caldera/hostplugins"
	"github.com/caldera-scheduler/caldera/runtime/reload"
	"github.com/caldera-scheduler/caldera/scheduler/actions"
)

// addPolicyFlags adds the flags that say where the policy comes from and
// how changes to it are picked up. watch is the default of --watch.
func addPolicyFlags(f *pflag.FlagSet, watch bool) {
	f.String("scheduler-conf", "", "scheduler configuration file (default: Volcano's default configuration)")
	f.String("plugin-dir", "", "directory of .wasm policy modules; a tier entry <name> loads <name>.wasm (default: the folder of --scheduler-conf)")
	f.Bool("watch", watch, "reload the configuration and modules when their files change, keeping the running version when a new one is broken")
	f.Duration("watch-debounce", reload.DefaultDebounce, "how long the watched directories must stay quiet before a change is read")
	addWasmCacheFlag(f)
}

// addWasmCacheFlag adds --wasm-cache-dir, where compiled modules are kept
// so that a restart or a module seen before does not compile again.
func addWasmCacheFlag(f *pflag.FlagSet) {
	f.String("wasm-cache-dir", defaultWasmCacheDir(), "directory of compiled Wasm modules kept between runs; empty compiles in memory only")
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
	cache := compilationCache(v.GetString("wasm-cache-dir"))
	rl, err := reload.New(ctx, reload.Options{
		ConfigPath: path,
		PluginDir:  pluginDirFor(v.GetString("plugin-dir"), path),
		Native:     hostplugins.Registry,
		Actions:    actions.Registry(),
		Cache:      cache,
		Debounce:   v.GetDuration("watch-debounce"),
		Report:     report,

		SkipInitialSelfTest: oneShot,
	})
	if err != nil {
		_ = cache.Close(context.Background())
		return nil, nil, err
	}
	// The cache's engine holds compiled code until it is closed; in-process
	// callers (tests) run many commands.
	return rl, func() { rl.Close(); _ = cache.Close(context.Background()) }, nil
}

// watchPolicy runs the reloader's watch until ctx is done. Failing to
// watch (no inotify instances left, say) leaves the loaded policy serving.
func watchPolicy(ctx context.Context, rl *reload.Reloader) {
	if err := rl.Watch(ctx); err != nil {
		klog.ErrorS(err, "Hot reload is off: changes to the configuration and modules need a restart")
	}
}
