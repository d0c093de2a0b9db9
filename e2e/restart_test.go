package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/caldera-scheduler/caldera/e2e/harness"
)

// bulkPods is how many pods the restart tests schedule.
const bulkPods = 200

// throttled slows the scheduler's API client so that binding the bulk pods
// takes seconds: the disruption then reliably lands mid-way.
var throttled = []string{"--kube-api-qps=40", "--kube-api-burst=40"}

// startBulk creates room and bulkPods plain pods, and a recorder.
func startBulk(tc *harness.Test) *harness.BindingRecorder {
	tc.CreateNodes(10, harness.NodeSpec{CPU: "32", Memory: "64Gi", Pods: 110})
	tc.CreatePods(harness.Pods{Prefix: "bulk", Count: bulkPods, CPU: "100m", Memory: "64Mi"})
	return tc.RecordBindings()
}

// waitSomeBound waits until at least n pods are bound, polling the recorder
// often so that the caller acts while binding is still under way.
func waitSomeBound(t *testing.T, rec *harness.BindingRecorder, n int) int {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if b := rec.BoundCount(); b >= n {
			return b
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("fewer than %d pods bound after %s", n, timeout)
	return 0
}

// checkAllBoundOnce waits until every bulk pod is bound and Running, then
// checks that none was lost or deleted. Rebinding is checked by the
// recorder itself (and fails the test at its end).
func checkAllBoundOnce(t *testing.T, tc *harness.Test, rec *harness.BindingRecorder) {
	t.Helper()
	harness.Eventually(t, bulkTimeout, func() (bool, string) {
		n := tc.CountPods("bulk", harness.Running)
		return n == bulkPods, fmt.Sprintf("%d of %d pods bound and Running", n, bulkPods)
	})
	if n := len(tc.ListPods("bulk")); n != bulkPods {
		t.Errorf("%d pods exist, want %d", n, bulkPods)
	}
	if d := rec.Deleted(); len(d) != 0 {
		t.Errorf("%d pods were deleted, e.g. %s", len(d), d[0].Name)
	}
	if v := rec.Violations(); len(v) != 0 {
		t.Errorf("%d pods were bound twice, e.g. %s", len(v), v[0])
	}
}

// logRedundantBinds reports binds the API refused because the pod was
// already bound: harmless (the API keeps a pod's first binding) but each
// means the scheduler decided again for a pod whose bind had gone through.
func logRedundantBinds(t *testing.T, schedulers ...*harness.Scheduler) {
	for _, s := range schedulers {
		if n := s.LogLines("is already assigned to node"); n > 0 {
			t.Logf("%s: %d binds refused because the pod was already bound", s.Name, n)
		}
	}
}

// TestSchedulerKilledMidway: a scheduler SIGKILLed while binding leaves no
// pod half-done; its successor binds the rest, each pod exactly once.
func TestSchedulerKilledMidway(t *testing.T) {
	tc := harness.NewTest(t)
	rec := startBulk(tc)

	first := tc.StartScheduler(throttled...)
	waitSomeBound(t, rec, 20)
	first.Kill()
	atKill := rec.BoundCount()
	t.Logf("killed %s with %d of %d pods bound", first.Name, atKill, bulkPods)
	if atKill == bulkPods {
		t.Log("every pod was bound before the kill landed: the restart is not tested mid-way")
	}

	second := tc.StartScheduler()
	checkAllBoundOnce(t, tc, rec)
	logRedundantBinds(t, first, second)
}

// TestAPIServerRestart: kube-apiserver restarts (same etcd) while the
// scheduler binds; the scheduler rides it out and every pod ends bound once.
func TestAPIServerRestart(t *testing.T) {
	tc := harness.NewTest(t)
	rec := startBulk(tc)

	s := tc.StartScheduler(throttled...)
	waitSomeBound(t, rec, 20)
	began := time.Now()
	if err := tc.Cluster().RestartAPIServer(tc.Ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("kube-apiserver restarted in %s, %d of %d pods bound by then", time.Since(began).Round(time.Millisecond), rec.BoundCount(), bulkPods)

	checkAllBoundOnce(t, tc, rec)
	logRedundantBinds(t, s)
	if s.Exited() {
		t.Errorf("%s exited during the apiserver restart", s.Name)
	}
}
