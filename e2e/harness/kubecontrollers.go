package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// PVBinderController is the name kube-controller-manager v1.32 gives the
// controller that binds PersistentVolumeClaims to PersistentVolumes.
const PVBinderController = "persistentvolume-binder-controller"

// pvBinderSynced is what kube-controller-manager logs once the PV binder's
// informers have synced (client-go's WaitForNamedCacheSync), after which
// it acts on every change.
const pvBinderSynced = "Caches are synced for persistent volume"

// KubeControllers is kube-controller-manager, built from the same
// k8s.io/kubernetes module as kube-apiserver by hack/e2e-tools.sh, running
// for one test with only the controllers it is given: by default the PV
// binder, which completes the volume bindings the scheduler starts (a
// volume's claimRef, a claim's selected node) as in a real cluster.
type KubeControllers struct {
	Name    string
	LogPath string
	// Started is how long it took from launch until its controllers'
	// informers had synced.
	Started time.Duration
	proc    *process
	stopped atomic.Bool
}

var kubeControllersSeq atomic.Int32

// StartKubeControllers starts kube-controller-manager as the cluster admin
// with only the PV binder controller, leader election off and no serving
// port (it answers nothing over HTTP: readiness is the log line saying the
// PV binder's caches have synced); args come after those. A --controllers
// among args replaces the list (the flag accumulates, so the PV binder's is
// then left out; its readiness line is waited for only if the list names
// it). It is stopped when the test ends; on failure the last lines of its
// log are printed.
//
// Only the tests that need it start it. It is ready in about a quarter of a
// second, but always running it would watch every test's pods (the
// benchmark's ten thousand among them) and write Events and claim status no
// other test expects.
func (tc *Test) StartKubeControllers(args ...string) *KubeControllers {
	t, c := tc.t, tc.c
	t.Helper()
	bin := c.Config.bin("kube-controller-manager")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("no kube-controller-manager: %v (run `make e2e-tools`)", err)
	}
	name := fmt.Sprintf("kube-controller-manager-%d", kubeControllersSeq.Add(1))
	kc := &KubeControllers{Name: name, LogPath: filepath.Join(c.Dir, name+".log")}
	var controllers []string
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--controllers="); ok {
			controllers = append(controllers, strings.Split(v, ",")...)
		}
	}
	full := []string{"--kubeconfig=" + c.AdminKubeconfig}
	if controllers == nil {
		controllers = []string{PVBinderController}
		full = append(full, "--controllers="+PVBinderController)
	}
	full = append(append(full,
		"--leader-elect=false",
		// No HTTPS endpoint: nothing to generate certificates for, no port.
		"--secure-port=0",
		// The PV binder's own client, not one per controller's service
		// account: no controller here creates those accounts.
		"--use-service-account-credentials=false",
		"-v=2",
	), args...)
	began := time.Now()
	kc.proc = tc.launch(name, kc.LogPath, bin, full)
	tc.stopAtEnd(name, kc.LogPath, kc.Stop)
	if slices.Contains(controllers, PVBinderController) {
		if err := waitLog(kc.proc, 60*time.Second, pvBinderSynced); err != nil {
			t.Fatal(err)
		}
	}
	kc.Started = time.Since(began)
	t.Logf("%s (%s) ready in %s", name, strings.Join(controllers, ","), kc.Started.Round(time.Millisecond))
	return kc
}

// Stop sends SIGTERM and waits up to 10 s for the exit, then SIGKILLs and
// says so. Without leader election kube-controller-manager's exit status
// after SIGTERM is not judged.
func (kc *KubeControllers) Stop() error { return stopUnjudged(&kc.stopped, kc.proc, kc.Name) }

// LogLines counts the lines of the controllers' log containing substr.
func (kc *KubeControllers) LogLines(substr string) int {
	n, _ := grep(kc.LogPath, substr)
	return n
}

// waitLog polls a process's log until a line contains substr, the process
// exits, or timeout passes.
func waitLog(p *process, timeout time.Duration, substr string) error {
	deadline := time.Now().Add(timeout)
	for {
		if n, _ := grep(p.logPath, substr); n > 0 {
			return nil
		}
		if p.exited() {
			return fmt.Errorf("%s exited before logging %q (%v); log: %s\n%s", p.name, substr, p.err, p.logPath, tail(p.logPath, 30))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not log %q within %s; log: %s\n%s", p.name, substr, timeout, p.logPath, tail(p.logPath, 30))
		}
		time.Sleep(50 * time.Millisecond)
	}
}
