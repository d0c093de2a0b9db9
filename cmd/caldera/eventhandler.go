package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"
	"github.com/tetratelabs/wazero"

	"github.com/caldera-scheduler/caldera/runtime"
	"github.com/caldera-scheduler/caldera/runtime/reload"
	"github.com/caldera-scheduler/caldera/scheduler/cache"
	"github.com/caldera-scheduler/caldera/scheduler/cache/reservations"
)

// addEventHandlerFlags adds --event-handler and --event-handler-config.
func addEventHandlerFlags(f *pflag.FlagSet) {
	f.String("event-handler", cache.DefaultEventHandler, "handler of object events: a registered name (default), or <name> with <name>.wasm in --plugin-dir, an event handler module")
	f.String("event-handler-config", "", "YAML file configuring the event handler (handler:) and the custom informers to run (informers:); see docs/configuration.md")
}

// eventHandlers is what the cache needs to build the handler the flags
// name: the registry, the handler's name and its configuration file, read
// once here.
type eventHandlers struct {
	registry *cache.Registry
	name     string
	config   *cache.HandlerFile
	close    func()
}

// newEventHandlers builds the registry of --event-handler: the default
// handler, the custom informers, and, when the name is not registered but
// <plugin-dir>/<name>.wasm exists, that module as a Wasm event handler.
func newEventHandlers(ctx context.Context, v *viper.Viper, wasmCache wazero.CompilationCache) (*eventHandlers, error) {
	reg := cache.NewRegistry()
	reservations.Register(reg)
	file, err := cache.ReadHandlerFile(v.GetString("event-handler-config"))
	if err != nil {
		return nil, err
	}
	eh := &eventHandlers{registry: reg, name: v.GetString("event-handler"), config: file, close: func() {}}
	if eh.name == "" {
		eh.name = cache.DefaultEventHandler
	}
	if _, ok := reg.Handler(eh.name); ok {
		return eh, nil
	}
	dir := pluginDirFor(v.GetString("plugin-dir"), v.GetString("scheduler-conf"))
	path := filepath.Join(dir, eh.name+".wasm")
	notRegistered := fmt.Sprintf("--event-handler %q: not a registered handler (registered: %s)", eh.name, strings.Join(reg.HandlerNames(), ", "))
	if dir == "" {
		return nil, fmt.Errorf("%s, and there is no --plugin-dir to find %s.wasm in", notRegistered, eh.name)
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("%s, and %s: %w", notRegistered, path, err)
	}
	// The handler section sets the module's limits, so it is parsed
	// before the module is loaded.
	cfg, err := runtime.ParseHandlerConfig(file.Handler)
	if err != nil {
		return nil, fmt.Errorf("--event-handler-config %s: %w", file.Path, err)
	}
	limits, _ := cfg.Limits() // checked by ParseHandlerConfig
	plugin, err := runtime.Load(ctx, path, runtime.Options{Name: eh.name, Limits: limits, Cache: wasmCache, Log: reload.GuestLog(eh.name)})
	if err != nil {
		return nil, fmt.Errorf("--event-handler: %w", err)
	}
	eh.close = func() { _ = plugin.Close(context.Background()) }
	reg.RegisterHandler(eh.name, func(hc cache.HandlerContext) (cache.EventHandler, error) {
		return runtime.NewEventHandler(plugin, hc.Name, cfg, hc.Default)
	})
	return eh, nil
}
