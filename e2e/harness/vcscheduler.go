package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// VcScheduler is Volcano's own vc-scheduler, built by hack/e2e-tools.sh
// from the same volcano.sh/volcano module as the controllers: the reference
// the differential tests (e2e/differential_test.go) and the benchmark
// compare caldera with.
type VcScheduler struct {
	Name string
	// MetricsURL is the http:// base of --listen-address, where it serves
	// /metrics.
	MetricsURL string
	LogPath    string
	proc       *process
	stopped    atomic.Bool
}

var vcSchedulerSeq atomic.Int32

// StartVcScheduler starts vc-scheduler as the cluster admin with the
// harness's usual settings for a scheduler (scheduler name volcano, a
// session every second, leader election off) and the given configuration
// file, and waits until its /healthz answers; args come after those. Its
// healthz answers before its informers have synced, as caldera's /readyz
// does not, so a test must wait for what it expects rather than assume an
// immediate first session. It is stopped when the test ends; on failure its
// log is printed.
func (tc *Test) StartVcScheduler(conf string, args ...string) *VcScheduler {
	t, c := tc.t, tc.c
	t.Helper()
	bin := c.Config.bin("vc-scheduler")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("no vc-scheduler: %v (run `make e2e-tools`)", err)
	}
	metricsPort, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	healthPort, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("vc-scheduler-%d", vcSchedulerSeq.Add(1))
	s := &VcScheduler{Name: name, MetricsURL: "http://" + loopback(metricsPort), LogPath: filepath.Join(c.Dir, name+".log")}
	full := append([]string{
		"--kubeconfig=" + c.AdminKubeconfig,
		"--scheduler-name=volcano",
		"--scheduler-conf=" + conf,
		"--schedule-period=1s",
		"--leader-elect=false",
		"--listen-address=" + loopback(metricsPort),
		"--enable-metrics=true",
		"--enable-healthz=true",
		"--healthz-address=" + loopback(healthPort),
		// Its cache dumper would write into /tmp on a signal; nothing here
		// sends one, but the suite leaves no files behind.
		"--cache-dumper=false",
		"--logtostderr=true",
		"-v=3",
	}, args...)
	s.proc = tc.launch(name, s.LogPath, bin, full)
	tc.stopAtEnd(name, s.LogPath, s.Stop)
	if err := waitHTTP(tc.Ctx, s.proc, 60*time.Second, "http://"+loopback(healthPort)+"/healthz", "", ""); err != nil {
		t.Fatal(err)
	}
	return s
}

// sessionsMetric counts vc-scheduler's finished sessions.
const sessionsMetric = "volcano_e2e_scheduling_latency_milliseconds_count"

// WaitFirstSession waits until vc-scheduler has finished a session, which
// it starts only once its informers have synced: the moment caldera's
// /readyz answers.
func (s *VcScheduler) WaitFirstSession(t testing.TB, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if s.proc.exited() {
			t.Fatalf("%s exited before its first session: %v", s.Name, s.proc.err)
		}
		if m, err := ReadMetrics(s.MetricsURL+"/metrics", 5*time.Second); err == nil && m[sessionsMetric] > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s finished no session within %s", s.Name, timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop sends SIGTERM and waits up to 10 s for the exit, then SIGKILLs and
// says so. vc-scheduler has no graceful stop of its own: its exit status
// after SIGTERM is not judged.
func (s *VcScheduler) Stop() error { return stopUnjudged(&s.stopped, s.proc, s.Name) }

// LogLines counts the lines of the scheduler's log containing substr.
func (s *VcScheduler) LogLines(substr string) int {
	n, _ := grep(s.LogPath, substr)
	return n
}

// Pid is the process id.
func (s *VcScheduler) Pid() int { return s.proc.pid() }
