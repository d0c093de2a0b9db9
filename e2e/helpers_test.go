package e2e

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/e2e/harness"
)

// Timeouts: generous, since every wait returns as soon as its condition
// holds.
const (
	timeout     = 60 * time.Second
	bulkTimeout = 120 * time.Second // hundreds of pods
)

// testdataPath is the absolute path of a file in testdata.
func testdataPath(t testing.TB, name string) string {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// schedulerConf is the --scheduler-conf flag for a file in testdata.
func schedulerConf(t testing.TB, name string) string {
	t.Helper()
	return "--scheduler-conf=" + testdataPath(t, name)
}

// waitPods waits until exactly want pods of a set satisfy pred (harness.Bound,
// harness.Running, ...), which is described by what for the failure message.
func waitPods(t *testing.T, tc *harness.Test, set string, want int, pred func(*v1.Pod) bool, what string) {
	t.Helper()
	harness.Eventually(t, timeout, func() (bool, string) {
		n := tc.CountPods(set, pred)
		return n == want, fmt.Sprintf("%d of the %s pods %s, want %d", n, set, what, want)
	})
}

// createJobs creates n single-pod jobs, each a PodGroup of minMember 1 named
// <set>-<i> in queue with one pod of cpu; all pods are in the given set.
func createJobs(tc *harness.Test, set string, n int, queue, cpu string) {
	createGangs(tc, set, n, 1, queue, cpu)
}

// createGangs creates n gangs, each a PodGroup of minMember size named
// <set>-<i> in queue with size pods of cpu; all pods are in the given set.
func createGangs(tc *harness.Test, set string, n, size int, queue, cpu string) {
	for i := range n {
		name := fmt.Sprintf("%s-%d", set, i)
		tc.CreatePodGroup(name, v1beta1.PodGroupSpec{MinMember: int32(size), Queue: queue})
		tc.CreatePods(harness.Pods{Prefix: name, Set: set, Count: size, CPU: cpu, PodGroup: name})
	}
}

// podGroupCondition returns the PodGroup's condition of type ct, if any.
func podGroupCondition(pg *v1beta1.PodGroup, ct v1beta1.PodGroupConditionType) *v1beta1.PodGroupCondition {
	for i := range pg.Status.Conditions {
		if pg.Status.Conditions[i].Type == ct {
			return &pg.Status.Conditions[i]
		}
	}
	return nil
}

// waitPodGroupPhase waits until a PodGroup reaches phase.
func waitPodGroupPhase(t *testing.T, tc *harness.Test, name string, phase v1beta1.PodGroupPhase) {
	t.Helper()
	harness.Eventually(t, timeout, func() (bool, string) {
		pg, err := tc.PodGroup(name)
		if err != nil {
			return false, err.Error()
		}
		return pg.Status.Phase == phase, fmt.Sprintf("PodGroup %s phase %q, want %q", name, pg.Status.Phase, phase)
	})
}

// hasCondition reports whether a pod carries a condition of type ct with status True.
func hasCondition(p *v1.Pod, ct v1.PodConditionType) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == ct && c.Status == v1.ConditionTrue {
			return true
		}
	}
	return false
}

// evictedAsVolcano reports whether a pod carries the condition Volcano's
// scheduler sets before evicting it: Ready False, reason Evict.
func evictedAsVolcano(p *v1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == v1.PodReady && c.Status == v1.ConditionFalse && c.Reason == "Evict" {
			return true
		}
	}
	return false
}

// waitEvent waits for a Warning Event about an object of the test's
// namespace with the given reason, as kubectl describe would list it.
func waitEvent(t *testing.T, tc *harness.Test, kind, name, reason string) {
	t.Helper()
	waitEventSaying(t, tc, kind, name, v1.EventTypeWarning, reason, "")
}

// waitEventSaying waits for an Event of the given type and reason about an
// object of the test's namespace whose message is message ("" for any).
func waitEventSaying(t *testing.T, tc *harness.Test, kind, name, eventType, reason, message string) {
	t.Helper()
	selector := fields.Set{
		"involvedObject.kind": kind,
		"involvedObject.name": name,
		"reason":              reason,
		"type":                eventType,
	}.String()
	harness.Eventually(t, timeout, func() (bool, string) {
		list, err := tc.Kube.CoreV1().Events(tc.Namespace).List(tc.Ctx, metav1.ListOptions{FieldSelector: selector})
		if err != nil {
			return false, err.Error()
		}
		var seen []string
		for _, e := range list.Items {
			if message == "" || e.Message == message {
				return true, ""
			}
			seen = append(seen, e.Message)
		}
		return false, fmt.Sprintf("no %s Event %s %q for %s %s (seen %q)", eventType, reason, message, kind, name, seen)
	})
}
