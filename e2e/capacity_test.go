package e2e

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/e2e/harness"
)

// TestCapacityHierarchyBorrowAndReclaim: under a parent queue of 8 CPU, child
// A (deserving 4) borrows its idle sibling B's half and runs 8 pods; when
// B's gang of 4 arrives, the capacity plugin reclaims A's borrowed pods and
// B runs, each child ending with what it deserves.
func TestCapacityHierarchyBorrowAndReclaim(t *testing.T) {
	tc := harness.NewTest(t)
	rec := tc.RecordBindings()
	tc.StartScheduler(schedulerConf(t, "capacity-hierarchy.yaml"))
	tc.CreateNodes(2, harness.NodeSpec{CPU: "4", Memory: "16Gi", Pods: 110})

	half := v1.ResourceList{v1.ResourceCPU: resource.MustParse("4"), v1.ResourceMemory: resource.MustParse("16Gi")}
	whole := v1.ResourceList{v1.ResourceCPU: resource.MustParse("8"), v1.ResourceMemory: resource.MustParse("32Gi")}
	org := tc.CreateQueue("org", v1beta1.QueueSpec{Weight: 1, Deserved: whole, Capability: whole})
	reclaimable := true
	qa := tc.CreateQueue("org-a", v1beta1.QueueSpec{Weight: 1, Parent: org, Deserved: half, Reclaimable: &reclaimable})
	qb := tc.CreateQueue("org-b", v1beta1.QueueSpec{Weight: 1, Parent: org, Deserved: half})

	tc.CreatePodGroup("a", v1beta1.PodGroupSpec{MinMember: 1, Queue: qa})
	tc.CreatePods(harness.Pods{Prefix: "a", Count: 8, CPU: "1", Memory: "1Gi", PodGroup: "a"})
	waitPods(t, tc, "a", 8, harness.Running, "bound and Running: A borrows B's idle half")

	tc.CreatePodGroup("b", v1beta1.PodGroupSpec{MinMember: 4, Queue: qb})
	tc.CreatePods(harness.Pods{Prefix: "b", Count: 4, CPU: "1", Memory: "1Gi", PodGroup: "b"})
	waitPods(t, tc, "b", 4, harness.Running, "bound and Running")
	harness.Eventually(t, timeout, func() (bool, string) {
		n := tc.CountPods("a", harness.Live)
		return n == 4, fmt.Sprintf("queue org-a has %d pods left, want its deserved 4", n)
	})
	for _, p := range rec.Deleted() {
		if p.Labels[harness.SetLabel] != "a" {
			t.Errorf("pod %s was deleted; only org-a's borrowed pods may be reclaimed", p.Name)
		}
	}
}
