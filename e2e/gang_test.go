package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/e2e/harness"
)

// TestGangAllOrNothing: with Volcano's default configuration, a gang that
// fits is bound whole and runs; a gang that cannot fit binds no pod at all,
// is not Running, and says why on its PodGroup.
func TestGangAllOrNothing(t *testing.T) {
	tc := harness.NewTest(t)
	tc.CreateNodes(4, harness.NodeSpec{CPU: "4", Memory: "16Gi", Pods: 110})
	tc.CreatePodGroup("fits", v1beta1.PodGroupSpec{MinMember: 3, Queue: "default"})
	tc.CreatePods(harness.Pods{Prefix: "fits", Count: 3, CPU: "2", Memory: "1Gi", PodGroup: "fits"})
	// 6 x 4 cpu: 24 cpu wanted of 16, 10 of which are left beside "fits".
	tc.CreatePodGroup("too-big", v1beta1.PodGroupSpec{MinMember: 6, Queue: "default"})
	tc.CreatePods(harness.Pods{Prefix: "too-big", Count: 6, CPU: "4", Memory: "1Gi", PodGroup: "too-big"})
	tc.RecordBindings()

	tc.StartScheduler()

	waitPods(t, tc, "fits", 3, harness.Running, "bound and Running")
	waitPodGroupPhase(t, tc, "fits", v1beta1.PodGroupRunning)
	harness.Eventually(t, timeout, func() (bool, string) {
		pg, err := tc.PodGroup("too-big")
		if err != nil {
			return false, err.Error()
		}
		c := podGroupCondition(pg, v1beta1.PodGroupUnschedulableType)
		return c != nil && c.Status == v1.ConditionTrue, fmt.Sprintf("too-big conditions %+v, want Unschedulable=True", pg.Status.Conditions)
	})
	// kubectl describe shows why.
	waitEvent(t, tc, "PodGroup", "too-big", "Unschedulable")
	waitEvent(t, tc, "Pod", "too-big-0", "FailedScheduling")
	// As Volcano words it, a pod that found a node before its gang fell
	// short is Schedulable there; at least one of the six fits beside
	// "fits" (16 cpu less 6).
	harness.Eventually(t, timeout, func() (bool, string) {
		var conds []string
		for _, p := range tc.ListPods("too-big") {
			for _, c := range p.Status.Conditions {
				if c.Type != v1.PodScheduled {
					continue
				}
				if c.Status == v1.ConditionFalse && c.Reason == "Schedulable" && strings.Contains(c.Message, "can possibly be assigned to") {
					return true, ""
				}
				conds = append(conds, c.Reason+": "+c.Message)
			}
		}
		return false, fmt.Sprintf("no too-big pod is Schedulable; PodScheduled conditions %q", conds)
	})
	// Several sessions later, still nothing of the big gang is bound.
	harness.Consistently(t, 3*time.Second, func() (bool, string) {
		n := tc.CountPods("too-big", harness.Bound)
		pg, err := tc.PodGroup("too-big")
		if err != nil {
			return false, err.Error()
		}
		return n == 0 && pg.Status.Phase != v1beta1.PodGroupRunning,
			fmt.Sprintf("%d too-big pods bound, phase %q: want none bound and not Running", n, pg.Status.Phase)
	})
}
