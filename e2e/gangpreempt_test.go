package e2e

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/e2e/harness"
)

// TestGangPreemptTakesTheWholeJob: a low-priority job of 8 pods with
// minMember 6 fills the cluster; a high-priority gang of 3 arrives in the
// same queue. The 2 pods the low job can spare are not enough, so
// gangpreempt takes the whole low job and the gang runs. (With preempt in
// its place, the gang also runs, but the low job is left with 5 pods,
// below its minMember.)
func TestGangPreemptTakesTheWholeJob(t *testing.T) {
	tc := harness.NewTest(t)
	rec := tc.RecordBindings()
	tc.StartScheduler(schedulerConf(t, "gangpreempt.yaml"))
	tc.CreateNodes(2, harness.NodeSpec{CPU: "4", Memory: "16Gi", Pods: 110})
	low := tc.CreatePriorityClass("low", 10)
	high := tc.CreatePriorityClass("high", 1000)
	tc.CreatePodGroup("low", v1beta1.PodGroupSpec{MinMember: 6, Queue: "default", PriorityClassName: low})
	tc.CreatePods(harness.Pods{Prefix: "low", Count: 8, CPU: "1", Memory: "1Gi", PodGroup: "low", PriorityClass: low})
	waitPods(t, tc, "low", 8, harness.Running, "bound and Running")

	tc.CreatePodGroup("high", v1beta1.PodGroupSpec{MinMember: 3, Queue: "default", PriorityClassName: high})
	tc.CreatePods(harness.Pods{Prefix: "high", Count: 3, CPU: "1", Memory: "1Gi", PodGroup: "high", PriorityClass: high})
	waitPods(t, tc, "high", 3, harness.Running, "bound and Running")
	harness.Eventually(t, timeout, func() (bool, string) {
		n := tc.CountPods("low", harness.Live)
		return n == 0, fmt.Sprintf("%d low-priority pods left, want none: the job could spare 2 and the gang needs 3", n)
	})
	var victims []*v1.Pod
	for _, p := range rec.Deleted() {
		if p.Labels[harness.SetLabel] != "low" {
			t.Errorf("pod %s was deleted; only the low job's pods may be victims", p.Name)
			continue
		}
		victims = append(victims, p)
		if !hasCondition(p, v1.DisruptionTarget) {
			t.Errorf("victim %s was deleted without a DisruptionTarget condition", p.Name)
		}
	}
	if len(victims) != 8 {
		t.Errorf("%d low pods deleted, want all 8", len(victims))
	}
	if len(victims) > 0 {
		waitEventSaying(t, tc, "Pod", victims[0].Name, v1.EventTypeWarning, "Evict", "Pod is evicted, because of gangpreempt")
	}
}
