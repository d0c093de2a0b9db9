package runtime

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/runtime/interrupt"
)

// instance is one instantiation of a plugin's module. It is not safe for
// concurrent use; the pool hands it to one caller at a time.
type instance struct {
	mod api.Module
	mem api.Memory
	fn  map[string]api.Function
	// interrupt, set, makes an instrumented module trap at its next loop
	// head; nil when wazero's termination checks stop the module instead.
	interrupt api.MutableGlobal
	// stackLeft is an instrumented module's stack budget, and maxCharge
	// the most one function takes from it: a trap with less left is the
	// budget's.
	stackLeft api.Global
	maxCharge uint32
	// output is the guest's stdout and stderr, whose unfinished lines are
	// passed on when each call returns.
	output [2]*guestOutput
	// held records the view the guest kept from its last session, the base
	// of the next session_open's delta; nil sends the whole view.
	held *heldView
	// buffer and bufferSize are what caldera_buffer last returned: the ABI
	// keeps that buffer valid until the next caldera_buffer call, so a
	// request that fits is written there without asking again.
	buffer, bufferSize uint32
	// The deadline of the call under way (watch): its timer, kept for the
	// instance's next calls, the caller's context and the cancellation of
	// a context-bound deadline.
	timer      *time.Timer
	timeout    time.Duration
	parent     context.Context
	stopParent func() bool
	cancel     context.CancelFunc
	// module is the module's name in its name section, which prefixes
	// the function names of a trap's trace.
	module string
	// stack carries a call's parameters and results (invoke).
	stack [2]uint64
}

func (p *Plugin) instantiate(ctx context.Context) (*instance, error) {
	p.busy.Add(1)
	defer p.busy.Add(-1)
	p.mu.Lock()
	p.seq++
	name := fmt.Sprintf("%s#%d", p.opts.Name, p.seq)
	p.mu.Unlock()
	stdout := &guestOutput{logs: p.opts.logs, level: 2}
	stderr := &guestOutput{logs: p.opts.logs, level: 1}
	cfg := wazero.NewModuleConfig().
		WithName(name).
		// Reactors: nothing runs at instantiation; _initialize is called
		// below, under the same deadline as a call.
		WithStartFunctions().
		WithStdout(stdout).
		WithStderr(stderr)
	mod, err := p.rt.InstantiateModule(withReservedMemory(ctx, &p.keepMemory), p.compiled, cfg)
	if err != nil {
		return nil, fmt.Errorf("instantiating: %w", err)
	}
	p.stderr.Store(mod, stderr)
	in := &instance{mod: mod, mem: mod.Memory(), fn: map[string]api.Function{}, output: [2]*guestOutput{stdout, stderr}, module: p.compiled.Name()}
	for _, name := range []string{abi.ExportVersion, abi.ExportBuffer, abi.ExportDescribe, abi.ExportCall} {
		in.fn[name] = mod.ExportedFunction(name)
	}
	if p.instrumented {
		g, ok := mod.ExportedGlobal(interrupt.Export).(api.MutableGlobal)
		if !ok {
			p.closeModule(ctx, mod)
			return nil, fmt.Errorf("instrumented module lacks its %s global", interrupt.Export)
		}
		in.interrupt = g
		stdout.interrupt, stderr.interrupt = g, g
		if in.stackLeft = mod.ExportedGlobal(interrupt.StackExport); in.stackLeft == nil {
			p.closeModule(ctx, mod)
			return nil, fmt.Errorf("instrumented module lacks its %s global", interrupt.StackExport)
		}
		in.maxCharge = p.maxCharge
	}
	if init := mod.ExportedFunction(abi.ExportInitialize); init != nil {
		_, err := in.invoke(in.watch(ctx, p.opts.Limits.CallTimeout), init)
		if werr := in.unwatch(); werr != nil {
			err = werr
		}
		if err != nil {
			p.closeModule(ctx, mod)
			return nil, fmt.Errorf("%s: %w", abi.ExportInitialize, err)
		}
	}
	p.mu.Lock()
	if p.closed { // closed meanwhile
		p.mu.Unlock()
		p.closeModule(ctx, mod)
		return nil, errPluginClosed
	}
	p.open++
	p.mu.Unlock()
	liveInstances.Add(1)
	return in, nil
}

// closeModule closes an instance's module and forgets its stderr.
func (p *Plugin) closeModule(ctx context.Context, mod api.Module) {
	p.stderr.Delete(mod)
	_ = mod.Close(ctx)
}

// errPluginClosed: an instance was asked of a plugin already closed.
var errPluginClosed = errors.New("the module has been unloaded")

// discard closes an instance whose state is unknown after a failed call.
func (p *Plugin) discard(in *instance) {
	p.closeModule(context.Background(), in.mod)
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed { // else Close counted it
		p.open--
		liveInstances.Add(-1)
	}
}

// liveInstances counts the module instances open in the process.
var liveInstances atomic.Int64

// LiveInstances returns how many module instances are open in the process,
// across every plugin and event handler: idle in a pool, or leased to a
// session. A leak check compares it before and after.
func LiveInstances() int64 { return liveInstances.Load() }

// minOpenTimeout is the least time session_open gets: it carries the whole
// session view, which grows with the cluster (a TinyGo module decodes 1,000
// nodes and 2,000 tasks in 0.2-0.8 s on this machine kind).
const minOpenTimeout = 10 * time.Second

// timeoutFor is the call's deadline, 0 for none: CallTimeout, but at least
// minOpenTimeout for session_open.
func (p *Plugin) timeoutFor(hook abi.Hook) time.Duration {
	t := p.opts.Limits.CallTimeout
	if hook == abi.HookSessionOpen && t > 0 && t < minOpenTimeout {
		return minOpenTimeout
	}
	return t
}

// get takes an idle instance or makes a new one.
func (p *Plugin) get(ctx context.Context) (*instance, error) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		in := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return in, nil
	}
	p.mu.Unlock()
	return p.instantiate(ctx)
}

// put returns a healthy instance to the pool.
func (p *Plugin) put(in *instance) {
	p.mu.Lock()
	p.idle = append(p.idle, in)
	p.mu.Unlock()
}

// watch arms one call's deadline, which covers every function the call
// invokes; the returned context is the one to invoke them with, and
// unwatch must follow. An instrumented instance is stopped by setting its
// interrupt, from a timer the instance keeps for all its calls (a context
// with a timer per call cost more than the call itself: 25 allocations
// and a few microseconds), or when ctx is done. Once set the interrupt
// stays set, so a call that overlapped the deadline fails even if the
// guest returned in time, and the caller, as after every failure, never
// reuses the instance. Other instances are closed by wazero when the
// context is done.
func (in *instance) watch(ctx context.Context, timeout time.Duration) context.Context {
	if in.interrupt == nil {
		if timeout > 0 {
			ctx, in.cancel = context.WithTimeout(ctx, timeout)
		}
		return ctx
	}
	if timeout > 0 {
		if in.timer == nil {
			in.timer = time.AfterFunc(timeout, in.stopGuest)
		} else {
			in.timer.Reset(timeout)
		}
		in.timeout = timeout
	}
	if ctx.Done() != nil {
		in.parent = ctx
		in.stopParent = context.AfterFunc(ctx, in.stopGuest)
	}
	return ctx
}

func (in *instance) stopGuest() { in.interrupt.Set(1) }

// unwatch disarms the deadline watch armed and reports ErrTimeout when it
// passed while the guest ran (an instrumented instance; wazero's own
// failure says so for the others).
func (in *instance) unwatch() error {
	var err error
	if in.timeout > 0 && !in.timer.Stop() {
		err = fmt.Errorf("%w: %v", ErrTimeout, in.timeout)
	}
	if in.stopParent != nil && !in.stopParent() && err == nil {
		err = fmt.Errorf("%w: %v", ErrTimeout, context.Cause(in.parent))
	}
	if in.cancel != nil {
		in.cancel()
	}
	in.timeout, in.parent, in.stopParent, in.cancel = 0, nil, nil, nil
	return err
}

// invoke calls fn, of at most two parameters, and returns its first
// result (0 if it has none), classifying a failure as one of the ABI's;
// the caller watches the deadline. The instance's own stack carries
// parameters and results: a call allocates nothing.
func (in *instance) invoke(ctx context.Context, fn api.Function, params ...uint64) (uint64, error) {
	in.stack = [2]uint64{}
	copy(in.stack[:], params)
	err := fn.CallWithStack(ctx, in.stack[:])
	if err != nil {
		err = classify(err)
	}
	trapped := errors.Is(err, ErrTrap)
	// Go's runtime prints its report to stderr, TinyGo's to stdout.
	report := append(in.output[1].endCall(trapped), in.output[0].endCall(trapped)...)
	switch {
	case err == nil:
		return in.stack[0], nil
	case trapped && in.stackLeft != nil && uint32(in.stackLeft.Get()) < in.maxCharge:
		err = fmt.Errorf("%w: the call's frames used up the stack budget of %d slots (recursion too deep)", ErrTrap, interrupt.StackBudget)
	case len(report) > 0:
		err = panicError(report, err, in.module)
	}
	return 0, err
}

// reply calls a function returning a packed (ptr<<32 | len) reply and
// returns the reply where it lies in guest memory: valid until the next
// call into the instance, so the caller decodes it at once (the decoders
// copy what they keep).
func (in *instance) reply(ctx context.Context, fn api.Function, maxBytes uint32, params ...uint64) ([]byte, error) {
	res, err := in.invoke(ctx, fn, params...)
	if err != nil {
		return nil, err
	}
	ptr, n := uint32(res>>32), uint32(res)
	if n > maxBytes {
		return nil, fmt.Errorf("%w: reply of %d bytes exceeds the limit of %d", ErrReply, n, maxBytes)
	}
	b, ok := in.mem.Read(ptr, n)
	if !ok {
		return nil, fmt.Errorf("%w: reply [%d, %d) lies outside the module's %d bytes of memory", ErrReply, ptr, uint64(ptr)+uint64(n), in.mem.Size())
	}
	return b, nil
}

// Failures of a call, as docs/abi.md names them.
var (
	ErrTrap    = errors.New("ETRAP: the module trapped")
	ErrTimeout = errors.New("ETIMEOUT: the call missed its deadline")
	ErrNoMem   = errors.New("ENOMEM: the module ran out of memory")
	ErrReply   = errors.New("EREPLY: malformed reply")
)

// classify turns a wazero error into one of the ABI's failures.
func classify(err error) error {
	var exit interface{ ExitCode() uint32 }
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%w: %v", ErrTimeout, err)
	case errors.As(err, &exit):
		return fmt.Errorf("%w: module exited with code %d", ErrTrap, exit.ExitCode())
	default:
		return fmt.Errorf("%w: %v", ErrTrap, err)
	}
}

// guestOutput sends what the guest writes to stdout or stderr to the
// plugin's log, a line per line: Go's runtime writes one println in
// several pieces and a panic in dozens, which as a record per write split
// messages from their values and files from their line numbers. A line is
// held until its newline or the end of the call, at most maxLogLine bytes
// of it; a longer one goes to the limiter in pieces, which cuts each. From
// a line that starts a panic report the lines are held to the end of the
// call (guest_panic.go). It cannot see the call's context: an
// instrumented instance's interrupt global says whether the deadline has
// passed (the others are closed by wazero when it does).
type guestOutput struct {
	logs      *logLimiter
	level     int
	interrupt api.Global
	pending   []byte
	// panicking is set from a panic's first line to the end of the call,
	// and report holds the lines meanwhile.
	panicking bool
	report    []string
}

func (w *guestOutput) Write(b []byte) (int, error) {
	if w.interrupt != nil && w.interrupt.Get() != 0 {
		panic(fmt.Errorf("%w: stopped in fd_write", ErrTimeout))
	}
	n := len(b)
	for len(b) > 0 {
		line, rest, complete := bytes.Cut(b, []byte{'\n'})
		b = rest
		if len(w.pending)+len(line) > maxLogLine {
			// Too long to hold: what is held goes out, and the rest of the
			// line straight from guest memory, cut by the limiter.
			w.flush()
			w.line(line)
			continue
		}
		w.pending = append(w.pending, line...)
		switch {
		case !complete:
		case len(w.pending) > 0:
			w.flush()
		case w.panicking:
			// A report's blank lines end its message and its trace.
			w.report = append(w.report, "")
		}
	}
	return n, nil
}

// flush passes on the line held, if any.
func (w *guestOutput) flush() {
	if len(w.pending) > 0 {
		w.line(w.pending)
		w.pending = w.pending[:0]
	}
}

// line logs one line, or holds it as part of a panic report.
func (w *guestOutput) line(b []byte) {
	if !w.panicking && panicStart(b) {
		w.panicking = true
	}
	if !w.panicking {
		w.logs.guest(w.level, b)
		return
	}
	if len(w.report) < maxPanicLines {
		w.report = append(w.report, string(b[:min(len(b), maxLogLine)]))
	}
}

// holdsPanic takes a message the guest logged through the log import
// when it is, or continues, a panic report, and reports whether it did.
func (w *guestOutput) holdsPanic(b []byte) bool {
	if !w.panicking && !panicStart(b) {
		return false
	}
	for line := range bytes.SplitSeq(b, []byte{'\n'}) {
		w.line(line)
	}
	return true
}

// endCall flushes what the call left unfinished and returns the panic
// report held, when the call trapped; otherwise the report's lines are
// logged like any others.
func (w *guestOutput) endCall(trapped bool) []string {
	w.flush()
	report := w.report
	w.panicking, w.report = false, nil
	if trapped {
		return report
	}
	for _, l := range report {
		if l != "" {
			w.logs.guest(w.level, []byte(l))
		}
	}
	return nil
}
