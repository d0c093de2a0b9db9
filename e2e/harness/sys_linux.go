package harness

import (
	"os"
	"syscall"
)

// sysProcAttr puts a child in its own process group (so that it can be
// signalled as a group and does not get the terminal's Ctrl-C before the
// harness stops it) and has the kernel kill it if the test binary dies
// without cleaning up (a panic, go test -timeout, SIGKILL).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// signalGroup signals the process group led by p.
func signalGroup(p *os.Process, sig syscall.Signal) error { return syscall.Kill(-p.Pid, sig) }
