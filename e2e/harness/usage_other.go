//go:build !linux

package harness

import (
	"errors"
	"time"
)

// ReadUsage needs Linux's /proc.
func ReadUsage(pid int) (Usage, error) {
	return Usage{}, errors.New("process usage is only read on Linux")
}

// ReadMachineCPU needs Linux's /proc.
func ReadMachineCPU() (time.Duration, error) {
	return 0, errors.New("machine CPU time is only read on Linux")
}
