package e2e

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/e2e/harness"
)

// TestPreempt: low-priority pods fill the cluster; a high-priority gang in
// the same queue arrives, low-priority pods are evicted (marked
// DisruptionTarget, then deleted) and the gang binds.
func TestPreempt(t *testing.T) {
	tc := harness.NewTest(t)
	rec := tc.RecordBindings()
	tc.StartScheduler(schedulerConf(t, "preempt.yaml"))
	preemptLowPriority(t, tc)

	var victims []*v1.Pod
	for _, p := range rec.Deleted() {
		if p.Labels[harness.SetLabel] != "low" {
			t.Errorf("pod %s was deleted; only low-priority pods may be victims", p.Name)
			continue
		}
		victims = append(victims, p)
		if !hasCondition(p, v1.DisruptionTarget) {
			t.Errorf("victim %s was deleted without a DisruptionTarget condition", p.Name)
		}
		if !evictedAsVolcano(p) {
			t.Errorf("victim %s was deleted without Volcano's Ready=False condition, reason Evict (%+v)", p.Name, p.Status.Conditions)
		}
	}
	if len(victims) > 0 {
		waitEventSaying(t, tc, "Pod", victims[0].Name, v1.EventTypeWarning, "Evict", "Pod is evicted, because of preempt")
		waitEventSaying(t, tc, "PodGroup", "low", v1.EventTypeNormal, "Evict", "preempt")
	}
	if len(victims) < 2 {
		t.Errorf("%d low-priority pods deleted, want at least the 2 the gang needs", len(victims))
	}
	t.Logf("%d victims", len(victims))
	harness.Eventually(t, timeout, func() (bool, string) {
		n := tc.CountPods("low", harness.Live)
		return n == 8-len(victims), fmt.Sprintf("%d low-priority pods left, want %d", n, 8-len(victims))
	})
}

// preemptLowPriority is TestPreempt's flow once the scheduler runs: eight
// low-priority pods fill the cluster, then a high-priority gang of two
// arrives and runs. The differential tests run it too.
func preemptLowPriority(t *testing.T, tc *harness.Test) {
	tc.CreateNodes(2, harness.NodeSpec{CPU: "4", Memory: "16Gi", Pods: 110})
	low := tc.CreatePriorityClass("low", 10)
	high := tc.CreatePriorityClass("high", 1000)
	// One job of 8 with minMember 1: gang lets 7 of its pods be victims (a
	// job of its own per pod would be protected by gang).
	tc.CreatePodGroup("low", v1beta1.PodGroupSpec{MinMember: 1, Queue: "default", PriorityClassName: low})
	tc.CreatePods(harness.Pods{Prefix: "low", Count: 8, CPU: "1", Memory: "1Gi", PodGroup: "low", PriorityClass: low})
	waitPods(t, tc, "low", 8, harness.Running, "bound and Running")

	tc.CreatePodGroup("high", v1beta1.PodGroupSpec{MinMember: 2, Queue: "default", PriorityClassName: high})
	tc.CreatePods(harness.Pods{Prefix: "high", Count: 2, CPU: "1", Memory: "1Gi", PodGroup: "high", PriorityClass: high})
	waitPods(t, tc, "high", 2, harness.Running, "bound and Running")
}
