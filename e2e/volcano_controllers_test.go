package e2e

import (
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	batch "volcano.sh/apis/pkg/apis/batch/v1alpha1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/e2e/harness"
)

// Tests with Volcano's own vc-controller-manager beside caldera: the flow a
// Volcano user runs (a Job is created, the controllers make its pods and
// PodGroup, the scheduler binds, kwok runs and completes the pods).

// vcTask is one task of a Volcano Job: replicas pods asking for cpu, in
// the test's pod set named after the Job.
type vcTask struct {
	name     string
	replicas int32
	cpu      string
	// keepRunning labels the pods so that kwok keeps them Running; else
	// kwok completes a Job's pods as soon as they run.
	keepRunning bool
	// priorityClass is the pods' spec.priorityClassName.
	priorityClass string
}

// keepRunningLabel is the label kwok's pod-complete stage leaves alone
// (hack/e2e-tools.sh).
const keepRunningLabel = "e2e.caldera.dev/keep-running"

// createVolcanoJob creates a batch.volcano.sh Job with what Volcano's
// admission webhook, which the suite does not run, would default:
// schedulerName volcano, queue default unless given, maxRetry 3, and
// minAvailable the sum of the replicas unless given.
func createVolcanoJob(t *testing.T, tc *harness.Test, name, queue string, minAvailable int32, tasks ...vcTask) *batch.Job {
	t.Helper()
	return submitVolcanoJob(t, tc, newVolcanoJob(tc, name, queue, minAvailable, tasks...))
}

// newVolcanoJob builds the Job createVolcanoJob creates, for a test that
// adds to it (policies, priority) before submitVolcanoJob.
func newVolcanoJob(tc *harness.Test, name, queue string, minAvailable int32, tasks ...vcTask) *batch.Job {
	if queue == "" {
		queue = "default"
	}
	job := &batch.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: tc.Namespace, Name: name},
		Spec:       batch.JobSpec{SchedulerName: "volcano", Queue: queue, MaxRetry: 3, MinAvailable: minAvailable},
	}
	for _, task := range tasks {
		if minAvailable == 0 {
			job.Spec.MinAvailable += task.replicas
		}
		labels := map[string]string{harness.SetLabel: name}
		if task.keepRunning {
			labels[keepRunningLabel] = "true"
		}
		job.Spec.Tasks = append(job.Spec.Tasks, batch.TaskSpec{
			Name:     task.name,
			Replicas: task.replicas,
			Template: v1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: v1.PodSpec{
					SchedulerName:     "volcano",
					PriorityClassName: task.priorityClass,
					RestartPolicy:     v1.RestartPolicyNever,
					Containers: []v1.Container{{Name: "main", Image: "busybox", Resources: v1.ResourceRequirements{
						Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse(task.cpu), v1.ResourceMemory: resource.MustParse("256Mi")},
					}}},
				},
			},
		})
	}
	return job
}

// submitVolcanoJob creates job.
func submitVolcanoJob(t *testing.T, tc *harness.Test, job *batch.Job) *batch.Job {
	t.Helper()
	created, err := tc.Volcano.BatchV1alpha1().Jobs(tc.Namespace).Create(tc.Ctx, job, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating Volcano Job %s: %v", job.Name, err)
	}
	return created
}

// waitJobPhase waits until a Volcano Job's status reaches phase.
func waitJobPhase(t *testing.T, tc *harness.Test, name string, phase batch.JobPhase) *batch.Job {
	t.Helper()
	var job *batch.Job
	harness.Eventually(t, timeout, func() (bool, string) {
		var err error
		job, err = tc.Volcano.BatchV1alpha1().Jobs(tc.Namespace).Get(tc.Ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return job.Status.State.Phase == phase, fmt.Sprintf("Job %s phase %q (%+v), want %q", name, job.Status.State.Phase, job.Status, phase)
	})
	return job
}

// jobPodGroup returns the PodGroup the job controller made for a Job:
// named <job>-<job uid> by Volcano v1.10's controller.
func jobPodGroup(t *testing.T, tc *harness.Test, job *batch.Job) *v1beta1.PodGroup {
	t.Helper()
	var pg *v1beta1.PodGroup
	harness.Eventually(t, timeout, func() (bool, string) {
		var err error
		pg, err = tc.PodGroup(fmt.Sprintf("%s-%s", job.Name, job.UID))
		return err == nil, fmt.Sprintf("PodGroup of Job %s: %v", job.Name, err)
	})
	return pg
}

// TestVolcanoJobRunsToCompletion: a three-pod Volcano Job goes from
// creation to Completed through Volcano's controllers and caldera: every
// pod bound by caldera, its PodGroup made by the controller with the
// Job's minAvailable and queue.
func TestVolcanoJobRunsToCompletion(t *testing.T) {
	tc := harness.NewTest(t)
	tc.CreateNodes(3, harness.NodeSpec{CPU: "4", Memory: "16Gi", Pods: 110})
	tc.StartScheduler()
	tc.StartVolcanoControllers()

	job := createVolcanoJob(t, tc, "train", "", 0, vcTask{name: "worker", replicas: 3, cpu: "1"})
	pg := jobPodGroup(t, tc, job)
	if pg.Spec.MinMember != 3 || pg.Spec.Queue != "default" {
		t.Errorf("PodGroup %s: minMember %d queue %q, want 3 and default", pg.Name, pg.Spec.MinMember, pg.Spec.Queue)
	}
	done := waitJobPhase(t, tc, "train", batch.Completed)
	if done.Status.Succeeded != 3 {
		t.Errorf("Job train: %d pods succeeded, want 3 (%+v)", done.Status.Succeeded, done.Status)
	}
	for _, p := range tc.ListPods("train") {
		if p.Spec.NodeName == "" || p.Status.Phase != v1.PodSucceeded {
			t.Errorf("pod %s: node %q phase %q, want bound and Succeeded", p.Name, p.Spec.NodeName, p.Status.Phase)
		}
	}
}

// TestVolcanoJobTooLargeWaits: a Job whose gang asks for more than the
// cluster has is not enqueued: its PodGroup stays Pending, so the job
// controller creates none of its pods (it waits for Inqueue), and the Job
// stays Pending. The PodGroup's Events say why in Volcano's words.
func TestVolcanoJobTooLargeWaits(t *testing.T) {
	tc := harness.NewTest(t)
	tc.CreateNodes(3, harness.NodeSpec{CPU: "4", Memory: "16Gi", Pods: 110})
	tc.StartScheduler()
	tc.StartVolcanoControllers()

	// Six pods of 3 cpu: 18 cpu, beyond the 12 of the nodes times
	// overcommit's factor of 1.2.
	job := createVolcanoJob(t, tc, "big", "", 0, vcTask{name: "worker", replicas: 6, cpu: "3"})
	pg := jobPodGroup(t, tc, job)
	if pg.Spec.MinResources == nil || pg.Spec.MinResources.Cpu().Cmp(resource.MustParse("18")) != 0 {
		t.Fatalf("PodGroup %s minResources %v, want the Job's 18 cpu", pg.Name, pg.Spec.MinResources)
	}
	waitPodGroupPhase(t, tc, pg.Name, v1beta1.PodGroupPending)
	harness.Consistently(t, 3*time.Second, func() (bool, string) {
		got, err := tc.PodGroup(pg.Name)
		if err != nil {
			return false, err.Error()
		}
		j, err := tc.Volcano.BatchV1alpha1().Jobs(tc.Namespace).Get(tc.Ctx, "big", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		n := len(tc.ListPods("big"))
		return got.Status.Phase == v1beta1.PodGroupPending && n == 0 && j.Status.State.Phase == batch.Pending,
			fmt.Sprintf("PodGroup phase %q, %d pods, Job phase %q: want Pending, none, Pending", got.Status.Phase, n, j.Status.State.Phase)
	})
	waitEventSaying(t, tc, "PodGroup", pg.Name, v1.EventTypeNormal, "Unschedulable", "resource in cluster is overused: overused cpu")
	waitEventSaying(t, tc, "PodGroup", pg.Name, v1.EventTypeWarning, "Unschedulable", "0/0 tasks in gang unschedulable: pod group is not ready, 6 minAvailable")
}

// TestVolcanoMPIJobCompletes: an MPI-style Job, one master and two
// workers in separate tasks under one gang, is bound whole and Completes.
func TestVolcanoMPIJobCompletes(t *testing.T) {
	tc := harness.NewTest(t)
	tc.CreateNodes(2, harness.NodeSpec{CPU: "4", Memory: "16Gi", Pods: 110})
	tc.StartScheduler()
	tc.StartVolcanoControllers()

	job := createVolcanoJob(t, tc, "mpi", "", 0,
		vcTask{name: "mpimaster", replicas: 1, cpu: "1"},
		vcTask{name: "mpiworker", replicas: 2, cpu: "2"})
	if pg := jobPodGroup(t, tc, job); pg.Spec.MinMember != 3 {
		t.Errorf("PodGroup %s minMember %d, want 3", pg.Name, pg.Spec.MinMember)
	}
	done := waitJobPhase(t, tc, "mpi", batch.Completed)
	if done.Status.Succeeded != 3 {
		t.Errorf("Job mpi: %d pods succeeded, want 3 (%+v)", done.Status.Succeeded, done.Status)
	}
	roles := map[string]int{}
	for _, p := range tc.ListPods("mpi") {
		if p.Spec.NodeName == "" {
			t.Errorf("pod %s was never bound", p.Name)
		}
		roles[p.Annotations[batch.TaskSpecKey]]++
	}
	if roles["mpimaster"] != 1 || roles["mpiworker"] != 2 {
		t.Errorf("pods per task %v, want 1 mpimaster and 2 mpiworker", roles)
	}
}

// TestVolcanoPlainPodGetsPodGroup: a plain pod for the volcano scheduler,
// with no PodGroup of its own, is given one by Volcano's podgroup
// controller and bound by caldera; the PodGroup becomes Running.
func TestVolcanoPlainPodGetsPodGroup(t *testing.T) {
	tc := harness.NewTest(t)
	tc.CreateNodes(1, harness.NodeSpec{CPU: "4", Memory: "16Gi", Pods: 110})
	tc.StartScheduler()
	tc.StartVolcanoControllers()

	tc.CreatePods(harness.Pods{Prefix: "plain", Count: 1, CPU: "1", Memory: "1Gi"})
	var group string
	harness.Eventually(t, timeout, func() (bool, string) {
		pods := tc.ListPods("plain")
		if len(pods) != 1 {
			return false, fmt.Sprintf("%d plain pods", len(pods))
		}
		group = pods[0].Annotations[v1beta1.KubeGroupNameAnnotationKey]
		return group != "" && pods[0].Spec.NodeName != "", fmt.Sprintf("pod annotations %v, node %q: want a PodGroup named and a node", pods[0].Annotations, pods[0].Spec.NodeName)
	})
	waitPodGroupPhase(t, tc, group, v1beta1.PodGroupRunning)
}

// TestRunWithVolcanoChartArguments: caldera started with the arguments
// Volcano's Helm chart gives its scheduler (every optional value set;
// leader election off and the suite's configuration file, as the suite
// runs every scheduler) schedules, and serves what they ask for: health,
// metrics and pprof.
func TestRunWithVolcanoChartArguments(t *testing.T) {
	tc := harness.NewTest(t)
	tc.CreateNodes(1, harness.NodeSpec{CPU: "4", Memory: "16Gi", Pods: 110})
	tc.CreatePods(harness.Pods{Prefix: "chart", Count: 2, CPU: "500m", Memory: "256Mi"})
	s := tc.StartScheduler(
		"--logtostderr",
		schedulerConf(t, "allocate.yaml"),
		"--scheduler-name=volcano",
		"--enable-healthz=true",
		"--enable-metrics=true",
		"--enable-pprof=true",
		"--leader-elect=false",
		"--kube-api-qps=2000",
		"--kube-api-burst=2000",
		"--schedule-period=1s",
		"--node-worker-threads=20",
		"--percentage-nodes-to-find=100",
		"--plugins-dir=/plugins",
		"--feature-gates=PodDisruptionBudgetsSupport=true",
		"--ignored-provisioners=rancher.io/local-path",
		"--scheduler-sharding-mode=none",
		"-v=3",
		"2>&1",
	)
	waitPods(t, tc, "chart", 2, harness.Running, "bound and Running")
	for _, url := range []string{s.MetricsURL + "/metrics", s.MetricsURL + "/debug/pprof/", s.HealthzURL + "/healthz"} {
		if code, _, err := s.HTTPGet(url); err != nil || code != 200 {
			t.Errorf("GET %s: %d, %v; want 200", url, code, err)
		}
	}
	if n := s.LogLines("changes nothing here"); n < 5 {
		t.Errorf("%d notices of flags that change nothing, want one each for --logtostderr, --node-worker-threads, --plugins-dir, --feature-gates, --ignored-provisioners and 2>&1", n)
	}
}
