package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/caldera-scheduler/caldera/e2e/harness"
)

// TestNodeSelectorFlag: with vc-scheduler's --node-selector, caldera
// schedules only onto the nodes carrying the label: of three pods of which
// a node holds two, two are bound to the labeled node and the third waits,
// though the unlabeled node is empty.
func TestNodeSelectorFlag(t *testing.T) {
	tc := harness.NewTest(t)
	tc.CreateNodes(2, harness.NodeSpec{CPU: "4", Memory: "16Gi", Pods: 110,
		LabelsOf: func(i int) map[string]string {
			if i == 0 {
				return map[string]string{"volcano.sh/role": "train"}
			}
			return nil
		}})
	tc.CreatePods(harness.Pods{Prefix: "sel", Count: 3, CPU: "2", Memory: "1Gi"})
	tc.StartScheduler("--node-selector=volcano.sh/role:train")

	waitPods(t, tc, "sel", 2, harness.Bound, "bound")
	labeled := tc.Namespace + "-n0"
	harness.Consistently(t, 3*time.Second, func() (bool, string) {
		bound := 0
		for _, p := range tc.ListPods("sel") {
			if p.Spec.NodeName == "" {
				continue
			}
			bound++
			if p.Spec.NodeName != labeled {
				return false, fmt.Sprintf("pod %s bound to %s, want only the labeled %s", p.Name, p.Spec.NodeName, labeled)
			}
		}
		return bound == 2, fmt.Sprintf("%d pods bound, want 2", bound)
	})
}
