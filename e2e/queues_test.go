package e2e

import (
	"fmt"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"testing"
	"time"

	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/e2e/harness"
)

// TestQueueWeights: two queues of weights 1 and 3, each with far more
// 1-cpu jobs than the 8 cpus of the cluster, share it 2:6 (proportion).
func TestQueueWeights(t *testing.T) {
	tc := harness.NewTest(t)
	q1, q3 := createWeightedQueueJobs(tc)
	rec := tc.RecordBindings()
	tc.StartScheduler(schedulerConf(t, "allocate.yaml"))

	harness.Eventually(t, timeout, func() (bool, string) {
		n := rec.BoundCount()
		return n == 8, fmt.Sprintf("%d pods bound, want the cluster's 8 cpus full", n)
	})
	rec.WaitIdle(3*time.Second, 10*time.Second)
	b1, b3 := tc.CountPods("q1", harness.Bound), tc.CountPods("q3", harness.Bound)
	t.Logf("bound: weight-1 queue %d, weight-3 queue %d", b1, b3)
	if b1+b3 != 8 || b1 < 1 || b1 > 3 || b3 < 5 || b3 > 7 {
		t.Errorf("weight-1 queue got %d cpus and weight-3 queue %d, want 2 and 6 (±1)", b1, b3)
	}
	// Each queue's status.allocated shows what its bound pods request.
	for _, q := range []struct {
		name  string
		bound int
	}{{q1, b1}, {q3, b3}} {
		harness.Eventually(t, timeout, func() (bool, string) {
			got, err := tc.Volcano.SchedulingV1beta1().Queues().Get(tc.Ctx, q.name, metav1.GetOptions{})
			if err != nil {
				return false, err.Error()
			}
			cpu := got.Status.Allocated[v1.ResourceCPU]
			return cpu.MilliValue() == int64(q.bound)*1000, fmt.Sprintf("queue %s status.allocated cpu %s, want %d", q.name, cpu.String(), q.bound)
		})
	}
}

// createWeightedQueueJobs makes TestQueueWeights' cluster: two nodes of 4
// cpu, queues of weights 1 and 3, and sixteen 1-cpu jobs in each; it
// returns the queues' names. Everything must exist before the first
// session, so that no queue gets a head start. The differential tests
// make it too.
func createWeightedQueueJobs(tc *harness.Test) (q1, q3 string) {
	tc.CreateNodes(2, harness.NodeSpec{CPU: "4", Memory: "32Gi", Pods: 110})
	q1 = tc.CreateQueue("w1", v1beta1.QueueSpec{Weight: 1})
	q3 = tc.CreateQueue("w3", v1beta1.QueueSpec{Weight: 3})
	createJobs(tc, "q1", 16, q1, "1")
	createJobs(tc, "q3", 16, q3, "1")
	return q1, q3
}
