package runtime

import (
	"context"
	"errors"
	goruntime "runtime"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/caldera-scheduler/caldera/runtime/interrupt"
)

// runtimeConfig is the wazero configuration a module is loaded with: with
// wazero's termination checks when the module has a deadline and no
// interrupt of ours; through the cache unless it has neither (such a
// module, whose instrumentation failed and which runs unchecked, is rare
// enough to compile each time). wazero keys its cache by the bytes and by
// whether the code has the checks.
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
// The module is compiled as LoadBytes would with opts.Limits: instrumented,
// or else with wazero's checks if it has a deadline. Nothing is compiled
// without a cache, or when LoadBytes would not use it. A module that does
// not compile is an error here and again at its load, which reports it.
func Precompile(ctx context.Context, code []byte, opts Options) (release func(), err error) {
	none := func() {}
	if opts.Cache == nil {
		return none, nil
	}
	if opts.Limits == (Limits{}) {
		opts.Limits = DefaultLimits()
	}
	instrumented := false
	m, err := interrupt.Instrument(code)
	switch {
	case err == nil:
		code, instrumented = m.Code, true
	case errors.Is(err, interrupt.ErrRefused), opts.Limits.CallTimeout == 0:
		return none, err
	}
	rt := wazero.NewRuntimeWithConfig(ctx, runtimeConfig(opts, instrumented))
	compiled, err := rt.CompileModule(compileContext(ctx), code)
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
