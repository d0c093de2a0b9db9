// Package regularfile reads the files the scheduler is given as inputs
// (configuration, cluster manifests, Wasm modules) so that no input can
// stall or exhaust it: only regular files are read, after symlinks are
// followed, and only up to a size named by the caller.
//
// A FIFO would block open until a writer came, and the reader with it (a
// reloader that stops for good, a simulation that never starts); a
// device such as /dev/zero never ends; a huge file would be read whole
// into memory. Each is refused with an error that names the path and what
// it is.
package regularfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// Limits of the inputs that use this package, in one place so that
// docs/operations.md can state them.
const (
	// MaxConfig bounds a scheduler configuration or a handler's
	// configuration file.
	MaxConfig = 4 << 20
	// MaxModule bounds a Wasm module: the example ports (make plugins)
	// are 0.23-3.5 MB.
	MaxModule = 128 << 20
	// MaxCluster bounds a cluster file of caldera simulate.
	MaxCluster = 512 << 20
	// MaxReservations bounds a file of external reservations.
	MaxReservations = 16 << 20
)

// ErrNotRegular is what an error Is when the path is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is what an error Is when the file is over its limit.
var ErrTooLarge = errors.New("file too large")

// Read returns the contents of the regular file at path, at most limit
// bytes. The file is opened without blocking (O_NONBLOCK: a FIFO opens at
// once instead of waiting for a writer) and checked before anything is
// read from it.
func Read(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, kind(info.Mode()))
	}
	if info.Size() > limit {
		return nil, fmt.Errorf("%s: %w: %d bytes, the limit is %d", path, ErrTooLarge, info.Size(), limit)
	}
	// The size may grow between the stat and the read: read one byte past
	// the limit to see it.
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: %w: over the limit of %d bytes", path, ErrTooLarge, limit)
	}
	return data, nil
}

func kind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a block device"
	}
	return m.Type().String()
}
