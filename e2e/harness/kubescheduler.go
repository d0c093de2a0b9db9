package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"
)

// KubeScheduler is one running kube-scheduler: the baseline the benchmark
// (e2e/bench_test.go) measures Caldera against. Only `make bench-e2e`
// builds its binary into Config.BinDir.
type KubeScheduler struct {
	Name    string
	LogPath string
	proc    *process
	stopped atomic.Bool
}

var kubeSchedulerSeq atomic.Int32

// StartKubeScheduler starts kube-scheduler as the admin (system:masters),
// with the given client rate limits, leader election off and its secure
// port on loopback, and waits until its /readyz answers 200, which it does
// once its informers have synced. Its one profile, default-scheduler, takes
// the pods whose schedulerName is default-scheduler. It is stopped when the
// test ends; on failure the log is printed.
func (tc *Test) StartKubeScheduler(qps float32, burst int) *KubeScheduler {
	t, c := tc.t, tc.c
	t.Helper()
	bin := c.Config.bin("kube-scheduler")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("no kube-scheduler (make bench-e2e builds it): %v", err)
	}
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("kube-scheduler-%d", kubeSchedulerSeq.Add(1))
	s := &KubeScheduler{Name: name, LogPath: filepath.Join(c.Dir, name+".log")}
	config := filepath.Join(c.Dir, name+".yaml")
	// clientConnection also sets the content type, protobuf by default.
	err = os.WriteFile(config, fmt.Appendf(nil, `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: %q
  qps: %g
  burst: %d
leaderElection:
  leaderElect: false
`, c.AdminKubeconfig, qps, burst), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	s.proc = tc.launch(name, s.LogPath, bin, []string{
		"--config=" + config,
		"--bind-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", port),
		"--cert-dir=" + filepath.Join(c.Dir, name+"-certs"),
		// /readyz is always allowed; these let the server check the rest.
		"--authentication-kubeconfig=" + c.AdminKubeconfig,
		"--authorization-kubeconfig=" + c.AdminKubeconfig,
	})
	tc.stopAtEnd(name, s.LogPath, s.Stop)
	url := fmt.Sprintf("https://%s/readyz", loopback(port))
	if err := waitHTTP(context.Background(), s.proc, 60*time.Second, url, "", "ok"); err != nil {
		t.Fatal(err)
	}
	return s
}

// Stop sends SIGTERM and waits up to 10 s for the exit, then SIGKILLs and
// says so. Without leader election kube-scheduler exits with an error
// status when told to stop ("finished without leader elect"): that is not
// a failure.
func (s *KubeScheduler) Stop() error { return stopUnjudged(&s.stopped, s.proc, s.Name) }

// Pid is the process id.
func (s *KubeScheduler) Pid() int { return s.proc.pid() }
