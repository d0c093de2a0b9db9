//go:build unix

package benchmarks

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user and system) the process has used
// so far, or false where it cannot be read. On a shared machine it moves
// far less than wall time, and it counts the in-process extender's side of
// every call as well as the scheduler's.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
