package runtime

import (
	"context"
	"fmt"

	"github.com/tetratelabs/wazero/api"

	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/runtime/interrupt"
)

// hostModule instantiates the "caldera" import module: log(level, ptr, len).
// The line is read where it lies in the guest's memory and copied only as
// far as the log limits let it through (log.go). A panic report (the Rust
// SDK sends one before the module aborts) joins the instance's stderr,
// which reports it with the trap (guest_panic.go).
func (p *Plugin) hostModule(ctx context.Context) error {
	_, err := p.rt.NewHostModuleBuilder(abi.HostModule).
		NewFunctionBuilder().
		WithFunc(func(ctx context.Context, m api.Module, level, ptr, n uint32) {
			stopIfPastDeadline(ctx, m)
			b, ok := m.Memory().Read(ptr, n)
			if !ok {
				return
			}
			if w, ok := p.stderr.Load(m); ok && w.(*guestOutput).holdsPanic(b) {
				return
			}
			p.opts.logs.guest(int(level), b)
		}).
		Export("log").
		Instantiate(ctx)
	return err
}

// stopIfPastDeadline ends the call under way, from inside a host function,
// when its deadline has passed: the guest's own checks are at its loop
// heads, and a host function that a guest calls without looping (one call
// per log line, each as long as the guest likes) must not outlive the
// deadline either. The panic reaches the caller as the call's failure, and
// unwatch names it ETIMEOUT.
func stopIfPastDeadline(ctx context.Context, m api.Module) {
	if err := ctx.Err(); err != nil {
		panic(fmt.Errorf("%w: %v", ErrTimeout, err))
	}
	if g := m.ExportedGlobal(interrupt.Export); g != nil && g.Get() != 0 {
		panic(fmt.Errorf("%w: stopped in a host function", ErrTimeout))
	}
}
