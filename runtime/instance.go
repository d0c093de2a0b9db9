package runtime

import (
	"context"
	"errors"
	"fmt"
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
	// held records the view the guest kept from its last session, the base
	// of the next session_open's delta; nil sends the whole view.
	held *heldView
}

func (p *Plugin) instantiate(ctx context.Context) (*instance, error) {
	p.mu.Lock()
	p.seq++
	name := fmt.Sprintf("%s#%d", p.opts.Name, p.seq)
	p.mu.Unlock()
	cfg := wazero.NewModuleConfig().
		WithName(name).
		// Reactors: nothing runs at instantiation; _initialize is called
		// below, under the same deadline as a call.
		WithStartFunctions().
		WithStdout(logWriter{p.opts.Log, 2}).
		WithStderr(logWriter{p.opts.Log, 1})
	mod, err := p.rt.InstantiateModule(ctx, p.compiled, cfg)
	if err != nil {
		return nil, fmt.Errorf("instantiating: %w", err)
	}
	in := &instance{mod: mod, mem: mod.Memory(), fn: map[string]api.Function{}}
	for _, name := range []string{abi.ExportVersion, abi.ExportBuffer, abi.ExportDescribe, abi.ExportCall} {
		in.fn[name] = mod.ExportedFunction(name)
	}
	if p.instrumented {
		g, ok := mod.ExportedGlobal(interrupt.Export).(api.MutableGlobal)
		if !ok {
			_ = mod.Close(ctx)
			return nil, fmt.Errorf("instrumented module lacks its %s global", interrupt.Export)
		}
		in.interrupt = g
	}
	if init := mod.ExportedFunction(abi.ExportInitialize); init != nil {
		callCtx, cancel := p.deadline(ctx)
		defer cancel()
		if _, err := in.invoke(callCtx, init); err != nil {
			_ = mod.Close(ctx)
			return nil, fmt.Errorf("%s: %w", abi.ExportInitialize, err)
		}
	}
	return in, nil
}

// minOpenTimeout is the least time session_open gets: it carries the whole
// session view, which grows with the cluster (a TinyGo module decodes 1,000
// nodes and 2,000 tasks in 0.2-0.8 s on this machine kind).
const minOpenTimeout = 10 * time.Second

// deadlineFor is the call's deadline: CallTimeout, but at least
// minOpenTimeout for session_open.
func (p *Plugin) deadlineFor(ctx context.Context, hook abi.Hook) (context.Context, context.CancelFunc) {
	if hook == abi.HookSessionOpen && p.opts.Limits.CallTimeout > 0 && p.opts.Limits.CallTimeout < minOpenTimeout {
		return context.WithTimeout(ctx, minOpenTimeout)
	}
	return p.deadline(ctx)
}

func (p *Plugin) deadline(ctx context.Context) (context.Context, context.CancelFunc) {
	if p.opts.Limits.CallTimeout <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, p.opts.Limits.CallTimeout)
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

// invoke calls fn, stopped when ctx is done, and classifies a failure as
// one of the ABI's. An instrumented instance is stopped by setting its
// interrupt when ctx is done; once set it stays set, so a call that
// overlapped the deadline fails even if the guest returned in time, and
// the caller, as after every failure, never reuses the instance.
func (in *instance) invoke(ctx context.Context, fn api.Function, params ...uint64) ([]uint64, error) {
	if in.interrupt == nil || ctx.Done() == nil {
		res, err := fn.Call(ctx, params...)
		if err != nil {
			return nil, classify(err)
		}
		return res, nil
	}
	stop := context.AfterFunc(ctx, func() { in.interrupt.Set(1) })
	res, err := fn.Call(ctx, params...)
	if !stop() {
		return nil, fmt.Errorf("%w: %v", ErrTimeout, context.Cause(ctx))
	}
	if err != nil {
		return nil, classify(err)
	}
	return res, nil
}

// reply calls a function returning a packed (ptr<<32 | len) reply and
// copies the reply out of guest memory.
func (in *instance) reply(ctx context.Context, fn api.Function, maxBytes uint32, params ...uint64) ([]byte, error) {
	res, err := in.invoke(ctx, fn, params...)
	if err != nil {
		return nil, err
	}
	ptr, n := uint32(res[0]>>32), uint32(res[0])
	if n > maxBytes {
		return nil, fmt.Errorf("%w: reply of %d bytes exceeds the limit of %d", ErrReply, n, maxBytes)
	}
	b, ok := in.mem.Read(ptr, n)
	if !ok {
		return nil, fmt.Errorf("%w: reply [%d, %d) lies outside the module's %d bytes of memory", ErrReply, ptr, uint64(ptr)+uint64(n), in.mem.Size())
	}
	return append([]byte(nil), b...), nil
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

// logWriter sends guest output to the plugin's log, one line per write.
type logWriter struct {
	log   func(int, string)
	level int
}

func (w logWriter) Write(b []byte) (int, error) {
	w.log(w.level, string(b))
	return len(b), nil
}
