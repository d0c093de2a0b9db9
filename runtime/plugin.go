package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/internal/regularfile"
	"github.com/caldera-scheduler/caldera/runtime/interrupt"
)

// errNotCompiled: wazero refused the module.
var errNotCompiled = errors.New("not a valid Wasm module")

// Limits bound what one plugin may use.
type Limits struct {
	// MemoryLimitPages caps each instance's memory, in 64 KiB pages.
	MemoryLimitPages uint32
	// CallTimeout bounds one call; 0 disables the deadline (trusted
	// modules only).
	CallTimeout time.Duration
	// MaxReplyBytes bounds a reply.
	MaxReplyBytes uint32
}

// DefaultLimits: 64 MiB of memory, one second per call, 16 MiB replies.
func DefaultLimits() Limits {
	return Limits{MemoryLimitPages: 1024, CallTimeout: time.Second, MaxReplyBytes: 16 << 20}
}

// Options configure loading.
type Options struct {
	// Name is the plugin's name in the configuration, used in errors and
	// logs.
	Name   string
	Limits Limits
	// Cache is shared by every plugin; nil compiles without a cache.
	Cache wazero.CompilationCache
	// SHA256, when set, must equal the module's digest.
	SHA256 string
	// Log receives the guest's log lines and output.
	Log func(level int, msg string)
	// logs limits what reaches Log (LoadBytes sets it).
	logs *logLimiter
}

// Plugin is a loaded module: compiled once, instantiated per concurrent
// caller.
type Plugin struct {
	opts       Options
	rt         wazero.Runtime
	compiled   wazero.CompiledModule
	descriptor abi.Descriptor
	version    abi.Version
	digest     string
	// instrumented: instances stop at their interrupt global, not through
	// wazero's termination checks.
	instrumented bool
	// maxCharge is the instrumented module's largest charge to its stack
	// budget (interrupt.Module.MaxCharge).
	maxCharge uint32
	// hooks holds the declared hooks, each with its collectors.
	hooks map[abi.Hook]hookMetrics
	// stderr maps each open instance's module to its stderr, where the
	// log import sends a panic report (host.go).
	stderr sync.Map

	mu   sync.Mutex
	idle []*instance
	seq  int
	// open counts the instances made and not yet closed; closed is set by
	// Close, which closes them all at once.
	open   int
	closed bool

	calls, failures atomic.Uint64
	// firstFailure is the first failed call's error since the load: the
	// cause, where later failures are often its consequences.
	firstFailure atomic.Pointer[error]
	// unmetered keeps the calls out of the scheduler's metrics: see
	// SetMetered.
	unmetered atomic.Bool
	// busy counts the calls and instantiations under way, which Close
	// waits for before freeing the instances' memory; keepMemory, set when
	// one outlives that wait, leaves the memory mapped (memory_mmap.go).
	busy       atomic.Int64
	keepMemory atomic.Bool
}

// Load reads, checks, compiles and instantiates a module, and asks it who
// it is. Every failure names the file and what is wrong with it.
func Load(ctx context.Context, path string, opts Options) (*Plugin, error) {
	code, err := regularfile.Read(path, regularfile.MaxModule)
	if err != nil {
		return nil, fmt.Errorf("plugin %s: %w", opts.Name, err)
	}
	p, err := LoadBytes(ctx, code, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// LoadBytes is Load for a module already in memory.
func LoadBytes(ctx context.Context, code []byte, opts Options) (*Plugin, error) {
	if opts.Limits == (Limits{}) {
		opts.Limits = DefaultLimits()
	}
	if opts.Log == nil {
		opts.Log = func(int, string) {}
	}
	opts.logs = newLogLimiter(opts.Log)
	opts.Log = opts.logs.log
	sum := sha256.Sum256(code)
	digest := hex.EncodeToString(sum[:])
	if opts.SHA256 != "" && opts.SHA256 != digest {
		return nil, fmt.Errorf("plugin %s: module digest is sha256:%s, the configuration pins sha256:%s", opts.Name, digest, opts.SHA256)
	}
	p, err := load(ctx, code, opts, true)
	if instrumentErr := err; errors.Is(err, errInstrumented) {
		// The instrumented module did not compile: load the module as it
		// came, whose errors (if it is invalid) are the author's to read.
		// If it does compile, the instrumentation is at fault: say so, as
		// for a module the instrumenter cannot read.
		if p, err = load(ctx, code, opts, false); err == nil {
			opts.Log(1, fmt.Sprintf("module not instrumented (%v): loaded as built, with wazero's slower termination checks if it has a deadline", instrumentErr))
		}
	}
	if err != nil {
		return nil, fmt.Errorf("plugin %s: %w", opts.Name, err)
	}
	p.digest = digest
	return p, nil
}

// errInstrumented: the instrumented module failed to compile.
var errInstrumented = errors.New("the instrumented module does not compile")

// load compiles and instantiates a module. Compiled Wasm cannot be
// preempted by Go: a guest must leave native code now and then, or a long
// call holds up every stop-the-world of the garbage collector, and with it
// the whole process; and a deadline needs a way to stop the guest. The
// module is instrumented (package interrupt: a countdown at every loop
// head that, every 1,024 iterations, checks an interrupt flag and leaves
// native code once) when instrument is set and the module allows it. It is
// compiled with wazero's termination checks otherwise, which leave native
// code at every loop iteration and make a guest 3x slower
// (docs/performance.md); or, with the deadline off (CallTimeout 0, trusted
// modules), with no checks at all (runtimeConfig says which code goes
// through the compilation cache). A module that exports the interrupt's
// name itself is refused, lest it be instrumented code posing as a module
// that needs the checks.
func load(ctx context.Context, code []byte, opts Options, instrument bool) (*Plugin, error) {
	deadline := opts.Limits.CallTimeout > 0
	instrumented, maxCharge := false, uint32(0)
	// notInstrumented is said only once the module has loaded: for a file
	// that is not Wasm at all, the load's own error is the one to read.
	notInstrumented := ""
	if instrument {
		m, err := interrupt.Instrument(code)
		switch {
		case err == nil:
			code, instrumented, maxCharge = m.Code, true, m.MaxCharge
		case errors.Is(err, interrupt.ErrRefused):
			return nil, err
		case deadline:
			notInstrumented = fmt.Sprintf("module not instrumented (%v): wazero's slower termination checks enforce its deadline", err)
		default:
			notInstrumented = fmt.Sprintf("module not instrumented (%v): with no deadline it runs unchecked, and a long call holds up Go's garbage collector", err)
		}
	}
	rt := wazero.NewRuntimeWithConfig(ctx, runtimeConfig(opts, instrumented))
	p := &Plugin{opts: opts, rt: rt, instrumented: instrumented, maxCharge: maxCharge}
	if err := p.load(ctx, code); err != nil {
		_ = p.Close(ctx) // also the compiled code, which a shared cache would keep
		if instrumented && errors.Is(err, errNotCompiled) {
			return nil, fmt.Errorf("%w: %w", errInstrumented, err)
		}
		return nil, err
	}
	if notInstrumented != "" {
		opts.Log(1, notInstrumented)
	}
	return p, nil
}

func (p *Plugin) load(ctx context.Context, code []byte) error {
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, p.rt); err != nil {
		return err
	}
	if err := p.hostModule(ctx); err != nil {
		return err
	}
	compiled, err := p.rt.CompileModule(compileContext(ctx), code)
	if err != nil {
		return fmt.Errorf("%w: %w", errNotCompiled, err)
	}
	p.compiled = compiled
	if err := checkExports(compiled); err != nil {
		return err
	}
	in, err := p.instantiate(ctx)
	if err != nil {
		return err
	}
	defer p.put(in)
	callCtx := in.watch(ctx, p.opts.Limits.CallTimeout)
	raw, err := in.invoke(callCtx, in.fn[abi.ExportVersion])
	if werr := in.unwatch(); werr != nil {
		err = werr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", abi.ExportVersion, err)
	}
	p.version = abi.Unpack(uint32(raw))
	if p.version.Major != abi.Major {
		return fmt.Errorf("module speaks ABI %s, this scheduler speaks %d.x (up to %d.%d)", p.version, abi.Major, abi.Major, abi.Minor)
	}
	callCtx = in.watch(ctx, p.opts.Limits.CallTimeout)
	reply, err := in.reply(callCtx, in.fn[abi.ExportDescribe], p.opts.Limits.MaxReplyBytes)
	if werr := in.unwatch(); werr != nil {
		err = werr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", abi.ExportDescribe, err)
	}
	if err := checkGuestMsgpackWithin(reply, p.maxValues()); err != nil {
		return fmt.Errorf("%s: %w", abi.ExportDescribe, err)
	}
	if err := msgpack.Unmarshal(reply, &p.descriptor); err != nil {
		return fmt.Errorf("%s returned a malformed descriptor: %w", abi.ExportDescribe, err)
	}
	p.hooks = map[abi.Hook]hookMetrics{}
	for _, name := range p.descriptor.Hooks {
		h, ok := abi.HookByName(name)
		if !ok {
			// A hook of a newer minor: this host never calls it.
			p.opts.Log(1, fmt.Sprintf("module declares hook %q, which ABI %d.%d does not have; it will not be called", name, abi.Major, abi.Minor))
			continue
		}
		p.hooks[h] = newHookMetrics(p.opts.Name, h)
	}
	// The host's volume and device checks are placed by the module among
	// its own filters: without predicate_batch they would reach no one.
	if p.ClaimChecks() && !p.Implements(abi.HookPredicateBatch) {
		return fmt.Errorf("%s: the module declares claimChecks but not predicate_batch, which carries their outcome", abi.ExportDescribe)
	}
	return nil
}

// ClaimChecks reports whether the host runs the volume and device checks
// for the module (ABI 1.10): it declares them and speaks 1.10 or later.
func (p *Plugin) ClaimChecks() bool {
	return p.descriptor.ClaimChecks && p.version.Minor >= 10
}

// checkExports names every missing or mistyped export at once.
func checkExports(m wazero.CompiledModule) error {
	i32, i64 := api.ValueTypeI32, api.ValueTypeI64
	want := map[string]struct{ params, result []api.ValueType }{
		abi.ExportVersion:  {nil, []api.ValueType{i32}},
		abi.ExportBuffer:   {[]api.ValueType{i32}, []api.ValueType{i32}},
		abi.ExportDescribe: {nil, []api.ValueType{i64}},
		abi.ExportCall:     {[]api.ValueType{i32, i32}, []api.ValueType{i64}},
	}
	fns := m.ExportedFunctions()
	var errs []error
	for _, name := range []string{abi.ExportVersion, abi.ExportBuffer, abi.ExportDescribe, abi.ExportCall} {
		def, ok := fns[name]
		if !ok {
			errs = append(errs, fmt.Errorf("missing export %s", name))
			continue
		}
		w := want[name]
		// Checked here, not at each call: the host calls with a stack of
		// its own (CallWithStack), which does not count parameters.
		if !slices.Equal(def.ParamTypes(), w.params) || !slices.Equal(def.ResultTypes(), w.result) {
			errs = append(errs, fmt.Errorf("export %s has type %s, want %s", name, signature(def.ParamTypes(), def.ResultTypes()), signature(w.params, w.result)))
		}
	}
	if _, ok := m.ExportedMemories()[abi.ExportMemory]; !ok {
		errs = append(errs, fmt.Errorf("missing export %s", abi.ExportMemory))
	}
	return errors.Join(errs...)
}

// signature writes a function type as docs/abi.md does: (i32, i32) -> i64.
func signature(params, results []api.ValueType) string {
	names := func(ts []api.ValueType) string {
		out := make([]string, len(ts))
		for i, t := range ts {
			out[i] = api.ValueTypeName(t)
		}
		return strings.Join(out, ", ")
	}
	return "(" + names(params) + ") -> " + names(results)
}

// Descriptor returns what the module declared.
func (p *Plugin) Descriptor() abi.Descriptor { return p.descriptor }

// Version returns the ABI version the module was built for.
func (p *Plugin) Version() abi.Version { return p.version }

// SHA256 returns the module's digest.
func (p *Plugin) SHA256() string { return p.digest }

// Implements reports whether the module declared the hook.
func (p *Plugin) Implements(h abi.Hook) bool {
	_, ok := p.hooks[h]
	return ok
}

// Close frees every instance and the compiled code. Calls under way on
// other goroutines (an event handler's, at shutdown) get until their
// deadline to end: an instance's memory is unmapped when it closes, and
// a call still running in it would fault. Memory a call still uses after
// that is left mapped.
func (p *Plugin) Close(ctx context.Context) error {
	p.mu.Lock()
	p.idle = nil
	if !p.closed {
		p.closed = true
		liveInstances.Add(-int64(p.open))
		p.open = 0
	}
	p.mu.Unlock()
	wait := p.opts.Limits.CallTimeout
	if wait <= 0 {
		wait = time.Second
	}
	for end := time.Now().Add(wait + time.Second); p.busy.Load() > 0; time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			p.keepMemory.Store(true)
			break
		}
	}
	err := p.rt.Close(ctx)
	// With a shared compilation cache the engine outlives the runtime, and
	// keeps the compiled module until it is closed explicitly: without this,
	// every module a hot reload replaces would stay in memory.
	if p.compiled != nil {
		_ = p.compiled.Close(ctx)
	}
	return err
}

// Calls and Failures count the calls made into the module and those that
// failed (trap, deadline, memory, bad reply, a status other than OK),
// since it was loaded; FirstFailure is the first of those failures, or
// nil.
func (p *Plugin) Calls() uint64 { return p.calls.Load() }

func (p *Plugin) Failures() uint64 { return p.failures.Load() }

func (p *Plugin) FirstFailure() error {
	if err := p.firstFailure.Load(); err != nil {
		return *err
	}
	return nil
}

// SetMetered says whether calls into the module count in the scheduler's
// plugin metrics (they do from the load on). A self-test turns them off
// while it tries a module that is not serving yet, and may never serve:
// its calls are not the calls of the plugin in service.
func (p *Plugin) SetMetered(on bool) { p.unmetered.Store(!on) }
