package harness

import (
	"fmt"
	"os"
	"sync/atomic"
	"time"
)

// launch starts one of a test's processes (a scheduler, Volcano's
// controllers): the command line first in logPath, then bin's output after
// it. The test fails if either step fails.
func (tc *Test) launch(name, logPath, bin string, args []string) *process {
	t := tc.t
	t.Helper()
	if err := os.WriteFile(logPath, fmt.Appendf(nil, "# %s %q\n", bin, args), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := startProcess(name, logPath, bin, args...)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("started %s (pid %d), log %s", name, p.pid(), logPath)
	return p
}

// stopAtEnd stops a process the test launched when the test ends, and
// prints the last lines of its log if the test failed.
func (tc *Test) stopAtEnd(name, logPath string, stop func() error) {
	t := tc.t
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Error(err)
		}
		if t.Failed() {
			t.Logf("%s log (last 100 lines of %s):\n%s", name, logPath, tail(logPath, 100))
		}
	})
}

// stopUnjudged sends SIGTERM once and waits up to 10 s for the exit, then
// SIGKILLs and says so; the exit status is not judged (a reference
// scheduler's, not ours).
func stopUnjudged(stopped *atomic.Bool, p *process, name string) error {
	if stopped.Swap(true) {
		return nil
	}
	if killed, _ := p.stop(10 * time.Second); killed {
		return fmt.Errorf("%s did not exit within 10s of SIGTERM; killed", name)
	}
	return nil
}
