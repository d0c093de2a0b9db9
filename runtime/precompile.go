package runtime

import (
	"context"
	goruntime "runtime"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/caldera-scheduler/caldera/runtime/interrupt"
)

// runtimeConfig is the wazero configuration a module is loaded with.
// wazero's compilation cache does not tell code compiled with its
// termination checks from code without, so code without them is cached
// only when instrumented (see load), whose bytes have a key of their own.
func runtimeConfig(opts Options, instrumented bool) wazero.RuntimeConfig {
	deadline := opts.Limits.CallTimeout > 0
	cfg := wazero.NewRuntimeConfig().
		WithCloseOnContextDone(deadline && !instrumented).
		WithMemoryLimitPages(opts.Limits.MemoryLimitPages)
	if opts.Cache != nil && (instrumented || deadline) {
		cfg = cfg.WithCompilationCache(opts.Cache)
	}
	return cfg
}

// compileContext compiles with one compiler per core: a new Go-toolchain
// module (2.5 MB) is otherwise compiled one function at a time, for most of
// a second.
func compileContext(ctx context.Context) context.Context {
	return experimental.WithCompilationWorkers(ctx, goruntime.GOMAXPROCS(0))
}

// Precompile compiles a module into opts.Cache ahead of its load: a later
// LoadBytes of the same bytes with the same cache then finds the code
// compiled and only instantiates it. The reloader calls it when a module
// file changes, while it waits for the directory to settle, so that the
// compile overlaps the wait. The code stays in the cache until release is
// called; by then a load that found it holds its own reference.
//
// Nothing is compiled without a cache, or for a module the interrupt
// instrumentation cannot read (LoadBytes would not cache it). A module
// that does not compile is an error here and again at its load, which
// reports it.
func Precompile(ctx context.Context, code []byte, opts Options) (release func(), err error) {
	none := func() {}
	if opts.Cache == nil {
		return none, nil
	}
	m, err := interrupt.Instrument(code)
	if err != nil {
		return none, err
	}
	if opts.Limits == (Limits{}) {
		opts.Limits = DefaultLimits()
	}
	rt := wazero.NewRuntimeWithConfig(ctx, runtimeConfig(opts, true))
	compiled, err := rt.CompileModule(compileContext(ctx), m.Code)
	if err != nil {
		_ = rt.Close(ctx)
		return none, err
	}
	// Closing the runtime alone would leave the code in the shared cache.
	return func() {
		_ = compiled.Close(context.Background())
		_ = rt.Close(context.Background())
	}, nil
}
