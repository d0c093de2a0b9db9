package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// VolcanoControllers is Volcano's own vc-controller-manager, built from the
// volcano.sh/volcano module by hack/e2e-tools.sh, running for one test: it
// turns batch.volcano.sh Jobs into pods and PodGroups, gives plain pods of
// the volcano scheduler a PodGroup, keeps queue status, and restarts or
// aborts Jobs by their policies, as in a Volcano installation.
type VolcanoControllers struct {
	LogPath string
	proc    *process
	stopped atomic.Bool
}

var volcanoSeq atomic.Int32

// StartVolcanoControllers starts vc-controller-manager as the cluster
// admin, for the volcano scheduler name, without leader election and with
// its health endpoint on a free loopback port; args come after those. It
// runs without Volcano's admission webhook, so a test's Jobs must carry
// what the webhook would default (schedulerName, queue, minAvailable,
// maxRetry). It is stopped when the test ends; on failure its log is
// printed.
func (tc *Test) StartVolcanoControllers(args ...string) *VolcanoControllers {
	t, c := tc.t, tc.c
	t.Helper()
	bin := c.Config.bin("vc-controller-manager")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("no vc-controller-manager: %v (run `make e2e-tools`)", err)
	}
	if !c.volcanoCRDs {
		t.Fatalf("Volcano's Job CRDs were not applied: no manifests in %s (run `make e2e-tools`)", c.Config.VolcanoCRDDir)
	}
	healthPort, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("vc-controller-manager-%d", volcanoSeq.Add(1))
	vc := &VolcanoControllers{LogPath: filepath.Join(c.Dir, name+".log")}
	full := append([]string{
		"--kubeconfig=" + c.AdminKubeconfig,
		"--scheduler-name=volcano",
		"--leader-elect=false",
		"--enable-healthz=true",
		"--healthz-address=" + loopback(healthPort),
		"--logtostderr=true",
		"-v=3",
	}, args...)
	vc.proc = tc.launch(name, vc.LogPath, bin, full)
	t.Cleanup(func() {
		// The test's Jobs go first, while the controllers can still delete
		// their pods: left behind, they would be acted on by the
		// controllers of a later test.
		if err := tc.Volcano.BatchV1alpha1().Jobs(tc.Namespace).DeleteCollection(tc.Ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
			t.Errorf("deleting the test's Volcano Jobs: %v", err)
		}
		if !vc.stopped.Swap(true) {
			if killed, err := vc.proc.stop(20 * time.Second); killed {
				t.Errorf("%s did not exit within 20s of SIGTERM; killed", name)
			} else if err != nil {
				t.Logf("%s exited with %v", name, err)
			}
		}
		if t.Failed() {
			t.Logf("%s log (last 100 lines of %s):\n%s", name, vc.LogPath, tail(vc.LogPath, 100))
		}
	})
	if err := waitHTTP(tc.Ctx, vc.proc, 60*time.Second, "http://"+loopback(healthPort)+"/healthz", "", ""); err != nil {
		t.Fatal(err)
	}
	return vc
}

// LogLines counts the lines of the controllers' log containing substr.
func (vc *VolcanoControllers) LogLines(substr string) int {
	n, _ := grep(vc.LogPath, substr)
	return n
}
