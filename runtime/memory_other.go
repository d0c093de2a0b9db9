//go:build !(linux || darwin || freebsd)

package runtime

import (
	"context"
	"sync/atomic"
)

// withReservedMemory leaves wazero's default memory on other systems.
func withReservedMemory(ctx context.Context, _ *atomic.Bool) context.Context { return ctx }
