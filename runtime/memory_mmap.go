//go:build linux || darwin || freebsd

package runtime

import (
	"context"
	"sync/atomic"
	"syscall"

	"github.com/tetratelabs/wazero/experimental"
)

// withReservedMemory has wazero back each instance's linear memory with
// one anonymous mapping of the memory's maximum, reserved and not
// committed: growing it hands out more of the same mapping, and the
// kernel gives the pages only when the guest touches them. wazero's
// default, a Go slice grown by append, copies the whole memory at every
// growth and leaves each old copy to the collector: a session that sends
// eight modules a 5,000-node view grew them through about a gigabyte of
// copies. The mapping is freed when the instance closes, so a discarded
// instance's memory goes back to the kernel at once.
//
// No host code keeps a slice of guest memory past the call that read it
// (instance.reply documents it; decoders copy what they keep), which an
// unmapped instance would otherwise turn into a fault; and Plugin.Close
// waits for calls under way before it closes the instances, setting keep
// when one outlives the wait, which leaves the memory mapped.
func withReservedMemory(ctx context.Context, keep *atomic.Bool) context.Context {
	return experimental.WithMemoryAllocator(ctx, experimental.MemoryAllocatorFunc(func(capacity, max uint64) experimental.LinearMemory {
		return reserveMemory(capacity, max, keep)
	}))
}

func reserveMemory(capacity, max uint64, keep *atomic.Bool) experimental.LinearMemory {
	size := max
	if size < capacity {
		size = capacity
	}
	b, err := syscall.Mmap(-1, 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON|mapNoReserve)
	if err != nil {
		// The address space is short (a 32-bit host, a ulimit): wazero's
		// growing slice still works.
		return &sliceMemory{buf: make([]byte, 0, capacity)}
	}
	return &reservedMemory{buf: b, keep: keep}
}

type reservedMemory struct {
	buf  []byte
	keep *atomic.Bool
}

func (m *reservedMemory) Reallocate(size uint64) []byte {
	if size > uint64(len(m.buf)) {
		return nil
	}
	return m.buf[:size:size]
}

func (m *reservedMemory) Free() {
	if m.buf != nil && !m.keep.Load() {
		_ = syscall.Munmap(m.buf)
		m.buf = nil
	}
}

// sliceMemory is wazero's own way: a slice grown by append.
type sliceMemory struct{ buf []byte }

func (m *sliceMemory) Reallocate(size uint64) []byte {
	if size > uint64(cap(m.buf)) {
		m.buf = append(m.buf[:cap(m.buf)], make([]byte, size-uint64(cap(m.buf)))...)
	}
	m.buf = m.buf[:size]
	return m.buf
}

func (m *sliceMemory) Free() { m.buf = nil }
