package harness

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// buildCaldera builds ./cmd/caldera into the run's directory, unless
// CALDERA_E2E_CALDERA names a binary. A failed build is remembered, not
// fatal: tests that need no scheduler still run.
func (c *Cluster) buildCaldera(ctx context.Context) {
	if c.Config.Caldera != "" {
		c.caldera = c.Config.Caldera
		return
	}
	out := c.path("caldera")
	goTool := envOr("GO", "go")
	cmd := exec.CommandContext(ctx, goTool, "build", "-o", out, "./cmd/caldera")
	cmd.Dir = c.Config.RepoRoot
	if msg, err := cmd.CombinedOutput(); err != nil {
		c.calderaErr = fmt.Errorf("%s build ./cmd/caldera: %v\n%s", goTool, err, msg)
		return
	}
	c.caldera = out
}

// Scheduler is one running `caldera run` process.
type Scheduler struct {
	Name string
	// MetricsURL and HealthzURL are the http:// bases of --listen-address
	// and --healthz-address.
	MetricsURL, HealthzURL string
	LogPath                string
	proc                   *process
	stopped                atomic.Bool // Stop or Kill was called
}

var schedulerSeq atomic.Int32

// StartScheduler starts `caldera run` against the cluster and waits until
// its /readyz answers 200. The harness passes --kubeconfig, --listen-address,
// --healthz-address, --scheduler-name volcano, --schedule-period 1s and
// --leader-elect=false; args come after them, so they can override any of
// these. The scheduler is stopped with SIGTERM when the test ends, which
// must make it exit 0; a log line reporting an API call forbidden by RBAC
// fails the test; on failure the log is printed.
func (tc *Test) StartScheduler(args ...string) *Scheduler {
	t, c := tc.t, tc.c
	t.Helper()
	if c.calderaErr != nil {
		t.Fatalf("no caldera binary: %v", c.calderaErr)
	}
	metricsPort, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	healthPort, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("caldera-%d", schedulerSeq.Add(1))
	apiserverStarts := c.apiserverStarts.Load()
	s := &Scheduler{
		Name:       name,
		MetricsURL: "http://" + loopback(metricsPort),
		HealthzURL: "http://" + loopback(healthPort),
		LogPath:    filepath.Join(c.Dir, name+".log"),
	}
	full := append([]string{"run",
		"--kubeconfig=" + c.SchedulerKubeconfig,
		"--listen-address=" + loopback(metricsPort),
		"--healthz-address=" + loopback(healthPort),
		"--scheduler-name=volcano",
		"--schedule-period=1s",
		"--leader-elect=false",
	}, args...)
	s.proc = tc.launch(name, s.LogPath, c.caldera, full)
	t.Cleanup(func() {
		if !s.stopped.Load() {
			if err := s.Stop(); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
		// Side calls (Events, pod conditions) can fail without failing the
		// test's assertions; a refused call means the deploy manifest's RBAC
		// lacks a permission the scheduler uses. Except right after an
		// apiserver (re)start: it serves before its RBAC cache has synced and
		// refuses everything but system:masters for a moment.
		if n, first := grep(s.LogPath, "is forbidden"); n > 0 {
			if c.apiserverStarts.Load() == apiserverStarts {
				t.Errorf("%s: %d API calls refused by RBAC, e.g.\n%s", name, n, first)
			} else {
				t.Logf("%s: %d API calls refused by RBAC, the apiserver having restarted meanwhile, e.g.\n%s", name, n, first)
			}
		}
		if t.Failed() {
			t.Logf("%s log (last 200 lines of %s):\n%s", name, s.LogPath, tail(s.LogPath, 200))
		}
	})
	s.WaitReady(t, 60*time.Second)
	return s
}

// WaitReady waits until /readyz answers 200, failing the test if the
// process exits first.
func (s *Scheduler) WaitReady(t testing.TB, timeout time.Duration) {
	t.Helper()
	if err := waitHTTP(context.Background(), s.proc, timeout, s.HealthzURL+"/readyz", "", ""); err != nil {
		t.Fatal(err)
	}
}

// HTTPGet fetches url (under MetricsURL or HealthzURL) and returns the
// status code and body.
func (s *Scheduler) HTTPGet(url string) (int, string, error) {
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// Stop sends SIGTERM and waits for the exit; the contract is a clean exit 0
// once the current session is done. After 20 s it SIGKILLs and reports that.
func (s *Scheduler) Stop() error {
	s.stopped.Store(true)
	if s.proc.exited() {
		if s.proc.err != nil {
			return fmt.Errorf("had already exited: %v", s.proc.err)
		}
		return nil
	}
	killed, err := s.proc.stop(20 * time.Second)
	switch {
	case killed:
		return fmt.Errorf("did not exit within 20s of SIGTERM; killed")
	case err != nil:
		return fmt.Errorf("exited with %v after SIGTERM, want exit status 0", err)
	}
	return nil
}

// Kill SIGKILLs the scheduler, as a node failure or OOM kill would.
func (s *Scheduler) Kill() {
	s.stopped.Store(true)
	s.proc.kill()
}

// LogLines counts the lines of the scheduler's log containing substr.
func (s *Scheduler) LogLines(substr string) int {
	n, _ := grep(s.LogPath, substr)
	return n
}

// Exited reports whether the process has ended.
func (s *Scheduler) Exited() bool { return s.proc.exited() }

// Pid is the process id.
func (s *Scheduler) Pid() int { return s.proc.pid() }

// CalderaBinary returns the caldera binary the suite built, or why it
// could not build one.
func (c *Cluster) CalderaBinary() (string, error) { return c.caldera, c.calderaErr }
