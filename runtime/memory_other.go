//go:build !(linux || darwin || freebsd)

package runtime

import "context"

// withReservedMemory leaves wazero's default memory on other systems.
func withReservedMemory(ctx context.Context) context.Context { return ctx }
