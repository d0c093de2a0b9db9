//go:build !unix

package harness

import (
	"os"
	"syscall"
)

// sysProcAttr: no process groups outside Unix.
func sysProcAttr() *syscall.SysProcAttr { return nil }

// signalGroup can only kill the process itself outside Unix.
func signalGroup(p *os.Process, _ syscall.Signal) error { return p.Kill() }
