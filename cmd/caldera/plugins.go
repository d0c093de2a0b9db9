package main

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tetratelabs/wazero"
	"k8s.io/klog/v2"

	"github.com/caldera-scheduler/caldera/runtime"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Tier-entry arguments that tune a Wasm plugin's sandbox; they are read by
// the host, not passed on as policy arguments.
const (
	argMemoryLimitPages = "wasm.memoryLimitPages"
	argCallTimeout      = "wasm.callTimeout"
	argIgnorable        = "wasm.ignorable"
	argSHA256           = "wasm.sha256"
)

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

// addWasmPlugins registers every DIR/<name>.wasm as plugin <name>. A module
// is loaded (compiled, checked, described) the first time the configuration
// names it, so that a broken module that is named fails at configuration
// load with the file and the cause, and one that is not named costs nothing.
func addWasmPlugins(reg framework.Registry, dir string, cache wazero.CompilationCache) error {
	if dir == "" {
		return nil
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.wasm"))
	if err != nil {
		return err
	}
	sort.Strings(files)
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".wasm")
		if _, native := reg[name]; native {
			return fmt.Errorf("plugin %q is both a native plugin and %s: rename the file", name, path)
		}
		reg[name] = wasmFactory(name, path, cache)
	}
	return nil
}

func wasmFactory(name, path string, cache wazero.CompilationCache) framework.Factory {
	var (
		once   sync.Once
		loaded *runtime.Plugin
		policy runtime.Policy
		err    error
	)
	return func(args framework.Arguments) (framework.Plugin, error) {
		once.Do(func() {
			opts := runtime.Options{Name: name, Limits: runtime.DefaultLimits(), Cache: cache, Log: guestLog(name)}
			var pages int
			var timeout string
			if err = args.Int(argMemoryLimitPages, &pages); err != nil {
				return
			}
			if pages > 0 {
				opts.Limits.MemoryLimitPages = uint32(pages)
			}
			if err = args.String(argCallTimeout, &timeout); err != nil {
				return
			}
			if timeout != "" {
				var d time.Duration
				if d, err = time.ParseDuration(timeout); err != nil {
					err = fmt.Errorf("%s: %w", argCallTimeout, err)
					return
				}
				opts.Limits.CallTimeout = d
			}
			if err = args.Bool(argIgnorable, &policy.Ignorable); err != nil {
				return
			}
			if err = args.String(argSHA256, &opts.SHA256); err != nil {
				return
			}
			start := time.Now()
			loaded, err = runtime.Load(context.Background(), path, opts)
			if err == nil {
				klog.InfoS("Loaded Wasm plugin", "plugin", name, "file", path, "sha256", loaded.SHA256(),
					"abi", loaded.Version().String(), "hooks", loaded.Descriptor().Hooks, "took", time.Since(start))
			}
		})
		if err != nil {
			return nil, err
		}
		return runtime.Factory(name, loaded, policy)(args)
	}
}

// guestLog sends a module's log lines to klog, prefixed with its name.
func guestLog(name string) func(int, string) {
	return func(level int, msg string) {
		msg = strings.TrimRight(msg, "\n")
		switch {
		case level <= 0:
			klog.ErrorS(nil, msg, "plugin", name)
		case level == 1:
			klog.InfoS("Warning: "+msg, "plugin", name)
		default:
			klog.V(klog.Level(level-2)).InfoS(msg, "plugin", name)
		}
	}
}
