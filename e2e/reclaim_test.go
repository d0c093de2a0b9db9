package e2e

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/e2e/harness"
)

// TestReclaim: queue A (reclaimable) fills the cluster while queue B, of
// equal weight, is empty; when B submits, the scheduler evicts some of A's
// pods and B's bind, each queue ending with its deserved half.
func TestReclaim(t *testing.T) {
	tc := harness.NewTest(t)
	rec := tc.RecordBindings()
	tc.StartScheduler(schedulerConf(t, "reclaim.yaml"))
	reclaimForStarvingGang(t, tc)

	harness.Eventually(t, timeout, func() (bool, string) {
		n := tc.CountPods("a", harness.Live)
		return n == 4, fmt.Sprintf("queue A has %d pods left, want its deserved 4", n)
	})
	for _, p := range rec.Deleted() {
		if p.Labels[harness.SetLabel] != "a" {
			t.Errorf("pod %s was deleted; only queue A's pods may be reclaimed", p.Name)
		} else if !hasCondition(p, v1.DisruptionTarget) {
			t.Errorf("reclaimed pod %s was deleted without a DisruptionTarget condition", p.Name)
		}
	}
}

// reclaimForStarvingGang is TestReclaim's flow once the scheduler runs:
// reclaimable queue A fills the cluster, then queue B's gang of 4 arrives
// and runs. The differential tests run it too.
func reclaimForStarvingGang(t *testing.T, tc *harness.Test) {
	tc.CreateNodes(2, harness.NodeSpec{CPU: "4", Memory: "16Gi", Pods: 110})
	reclaimable := true
	qa := tc.CreateQueue("a", v1beta1.QueueSpec{Weight: 1, Reclaimable: &reclaimable})
	qb := tc.CreateQueue("b", v1beta1.QueueSpec{Weight: 1})
	tc.CreatePodGroup("a", v1beta1.PodGroupSpec{MinMember: 1, Queue: qa})
	tc.CreatePods(harness.Pods{Prefix: "a", Count: 8, CPU: "1", Memory: "1Gi", PodGroup: "a"})
	waitPods(t, tc, "a", 8, harness.Running, "bound and Running")

	// A gang of 4: Volcano reclaims only for a starving job, one with fewer
	// than minMember pods placed; with minMember 1 a single pod is reclaimed.
	tc.CreatePodGroup("b", v1beta1.PodGroupSpec{MinMember: 4, Queue: qb})
	tc.CreatePods(harness.Pods{Prefix: "b", Count: 4, CPU: "1", Memory: "1Gi", PodGroup: "b"})
	waitPods(t, tc, "b", 4, harness.Running, "bound and Running")
}
