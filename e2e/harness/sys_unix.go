//go:build unix && !linux

package harness

import (
	"os"
	"syscall"
)

// sysProcAttr puts a child in its own process group. Only Linux has a
// parent-death signal: here a crashed test binary may leave children behind.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// signalGroup signals the process group led by p.
func signalGroup(p *os.Process, sig syscall.Signal) error { return syscall.Kill(-p.Pid, sig) }
