package runtime

import (
	"context"

	"github.com/tetratelabs/wazero/api"

	"github.com/caldera-scheduler/caldera/abi"
)

// hostModule instantiates the "caldera" import module: log(level, ptr, len).
func (p *Plugin) hostModule(ctx context.Context) error {
	_, err := p.rt.NewHostModuleBuilder(abi.HostModule).
		NewFunctionBuilder().
		WithFunc(func(_ context.Context, m api.Module, level, ptr, n uint32) {
			if b, ok := m.Memory().Read(ptr, n); ok {
				p.opts.Log(int(level), string(b))
			}
		}).
		Export("log").
		Instantiate(ctx)
	return err
}
