package e2e

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	batch "volcano.sh/apis/pkg/apis/batch/v1alpha1"
	busv1alpha1 "volcano.sh/apis/pkg/apis/bus/v1alpha1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/e2e/harness"
)

// runningLive holds for a pod bound, Running and not being deleted.
func runningLive(p *v1.Pod) bool { return harness.Running(p) && harness.Live(p) }

// TestVolcanoQueuesShareByWeight: two Volcano Jobs in queues of weights 3
// and 1, reclaimable, each wanting the whole cluster (8 pods of 1 cpu on
// 8 cpus). The weight-3 Job comes first and takes every cpu; when the
// weight-1 Job arrives, reclaim evicts enough of the first Job's pods for
// the second's gang of 2 (the controller recreates them, pending), and the
// cluster ends shared 6:2, as the weights say. The configuration has no
// enqueue action: with one, overcommit would keep the second Job's
// PodGroup Pending on a full cluster, and its controller would make no pods
// to reclaim for.
func TestVolcanoQueuesShareByWeight(t *testing.T) {
	tc := harness.NewTest(t)
	tc.StartScheduler(schedulerConf(t, "reclaim-no-enqueue.yaml"))
	tc.StartVolcanoControllers()
	queuesShareByWeight(t, tc)
}

// queuesShareByWeight is TestVolcanoQueuesShareByWeight once the scheduler
// and the controllers run; the differential tests run it too.
func queuesShareByWeight(t *testing.T, tc *harness.Test) {
	tc.CreateNodes(2, harness.NodeSpec{CPU: "4", Memory: "32Gi", Pods: 110})
	reclaimable := true
	q3 := tc.CreateQueue("w3", v1beta1.QueueSpec{Weight: 3, Reclaimable: &reclaimable})
	q1 := tc.CreateQueue("w1", v1beta1.QueueSpec{Weight: 1, Reclaimable: &reclaimable})

	createVolcanoJob(t, tc, "heavy", q3, 6, vcTask{name: "worker", replicas: 8, cpu: "1", keepRunning: true})
	waitPods(t, tc, "heavy", 8, runningLive, "Running while the Job is alone")

	createVolcanoJob(t, tc, "light", q1, 2, vcTask{name: "worker", replicas: 8, cpu: "1", keepRunning: true})
	waitJobPhase(t, tc, "light", batch.Running)
	harness.Eventually(t, timeout, func() (bool, string) {
		heavy, light := tc.CountPods("heavy", runningLive), tc.CountPods("light", runningLive)
		return heavy == 6 && light == 2, fmt.Sprintf("Running pods: weight-3 Job %d, weight-1 Job %d; want 6 and 2", heavy, light)
	})
	if j := waitJobPhase(t, tc, "heavy", batch.Running); j.Status.Running < 6 {
		t.Errorf("heavy Job: %d running in its status, want 6", j.Status.Running)
	}
}

// TestVolcanoPreemptRestartsJob: a low-priority Volcano Job whose policy
// restarts it when a pod is evicted fills the cluster; a high-priority
// Job's gang arrives and preempts. The eviction makes the controller
// restart the low Job (its retry count goes up and its pods are made
// anew), and the high Job runs. No enqueue action, as in
// TestVolcanoQueuesShareByWeight.
func TestVolcanoPreemptRestartsJob(t *testing.T) {
	tc := harness.NewTest(t)
	tc.StartScheduler(schedulerConf(t, "preempt-no-enqueue.yaml"))
	tc.StartVolcanoControllers()
	preemptRestartsJob(t, tc)
}

// preemptRestartsJob is TestVolcanoPreemptRestartsJob once the scheduler
// and the controllers run; the differential tests run it too.
func preemptRestartsJob(t *testing.T, tc *harness.Test) {
	tc.CreateNodes(2, harness.NodeSpec{CPU: "4", Memory: "16Gi", Pods: 110})
	low := tc.CreatePriorityClass("low", 10)
	high := tc.CreatePriorityClass("high", 1000)

	lowJob := newVolcanoJob(tc, "low", "", 1, vcTask{name: "worker", replicas: 8, cpu: "1", keepRunning: true, priorityClass: low})
	lowJob.Spec.PriorityClassName = low
	lowJob.Spec.Policies = []batch.LifecyclePolicy{{Event: busv1alpha1.PodEvictedEvent, Action: busv1alpha1.RestartJobAction}}
	submitVolcanoJob(t, tc, lowJob)
	waitPods(t, tc, "low", 8, runningLive, "Running")
	firstUIDs := map[string]bool{}
	for _, p := range tc.ListPods("low") {
		firstUIDs[string(p.UID)] = true
	}

	highJob := newVolcanoJob(tc, "high", "", 2, vcTask{name: "worker", replicas: 2, cpu: "1", keepRunning: true, priorityClass: high})
	highJob.Spec.PriorityClassName = high
	submitVolcanoJob(t, tc, highJob)

	waitJobPhase(t, tc, "high", batch.Running)
	waitPods(t, tc, "high", 2, runningLive, "Running")
	harness.Eventually(t, timeout, func() (bool, string) {
		j, err := tc.Volcano.BatchV1alpha1().Jobs(tc.Namespace).Get(tc.Ctx, "low", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return j.Status.RetryCount >= 1, fmt.Sprintf("low Job retry count %d (status %+v), want a restart", j.Status.RetryCount, j.Status.State)
	})
	// Restarted, the low Job's pods are new ones, and as many run as the
	// high Job leaves room for.
	harness.Eventually(t, timeout, func() (bool, string) {
		running, old := 0, 0
		for _, p := range tc.ListPods("low") {
			if firstUIDs[string(p.UID)] {
				old++
			}
			if runningLive(&p) {
				running++
			}
		}
		return old == 0 && running == 6, fmt.Sprintf("low Job: %d pods of before the restart left, %d Running; want none and 6", old, running)
	})
}
