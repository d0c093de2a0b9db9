package e2e

import (
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"
	vcclient "volcano.sh/apis/pkg/client/clientset/versioned"

	"github.com/caldera-scheduler/caldera/e2e/harness"
)

// TestHarness checks the environment itself, without a scheduler: kwok makes
// nodes Ready and bound pods Running and finalizes deleted ones, the CRDs
// behave as the scheduler expects, the scheduler's identity may do what a
// scheduler does, and everything survives an apiserver restart.
func TestHarness(t *testing.T) {
	tc := harness.NewTest(t)
	nodes := tc.CreateNodes(2, harness.NodeSpec{CPU: "4", Memory: "8Gi", Pods: 10})
	node, err := tc.Kube.CoreV1().Nodes().Get(tc.Ctx, nodes[0], metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cpu := node.Status.Allocatable.Cpu(); cpu.String() != "4" {
		t.Errorf("kwok changed allocatable cpu to %s, want the 4 given", cpu)
	}
	if len(node.Spec.Taints) != 0 {
		t.Errorf("node has taints %v; nothing would lift them without a controller-manager", node.Spec.Taints)
	}

	q := tc.CreateQueue("q", v1beta1.QueueSpec{Weight: 2})
	queue, err := tc.Volcano.SchedulingV1beta1().Queues().Get(tc.Ctx, q, metav1.GetOptions{})
	if err != nil || queue.Status.State != v1beta1.QueueStateOpen {
		t.Fatalf("queue %s: %v, state %q, want Open", q, err, queue.Status.State)
	}
	tc.CreatePodGroup("pg", v1beta1.PodGroupSpec{MinMember: 1, Queue: q})
	pods := tc.CreatePods(harness.Pods{Prefix: "p", Count: 2, CPU: "1", PodGroup: "pg"})

	// The scheduler's identity: bind, update the PodGroup (status included,
	// through a plain Update: the CRD has no status subresource), mark and
	// delete a pod, as the scheduler does.
	sched := schedulerClients(t, tc)
	bind(t, sched.kube, pods[0], nodes[0])
	pg, err := tc.PodGroup("pg")
	if err != nil {
		t.Fatal(err)
	}
	pg.Status.Phase = v1beta1.PodGroupInqueue
	if _, err := sched.volcano.SchedulingV1beta1().PodGroups(tc.Namespace).Update(tc.Ctx, pg, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("scheduler identity updating PodGroup: %v", err)
	}
	if pg, err = tc.PodGroup("pg"); err != nil || pg.Status.Phase != v1beta1.PodGroupInqueue {
		t.Fatalf("PodGroup phase after plain Update: %q (%v), want Inqueue", pg.Status.Phase, err)
	}
	waitRunning(t, tc, "p", 1)

	// kwok finalizes a bound pod deleted with the default grace period, as
	// an evicted victim is.
	if err := sched.kube.CoreV1().Pods(tc.Namespace).Delete(tc.Ctx, pods[0].Name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("scheduler identity deleting pod: %v", err)
	}
	harness.Eventually(t, 30*time.Second, func() (bool, string) {
		n := tc.CountPods("p", func(p *v1.Pod) bool { return p.Name == pods[0].Name })
		return n == 0, "deleted bound pod still present"
	})

	// An apiserver restart keeps the data, and kwok reconnects.
	if err := tc.Cluster().RestartAPIServer(tc.Ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := tc.PodGroup("pg"); err != nil {
		t.Fatalf("PodGroup after apiserver restart: %v", err)
	}
	bind(t, sched.kube, pods[1], nodes[1])
	waitRunning(t, tc, "p", 1)
}

type clients struct {
	kube    kubernetes.Interface
	volcano vcclient.Interface
}

// schedulerClients are clients with the identity caldera runs with.
func schedulerClients(t *testing.T, tc *harness.Test) clients {
	t.Helper()
	cfg := tc.Cluster().SchedulerREST()
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	volcano, err := vcclient.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return clients{kube, volcano}
}

func bind(t *testing.T, kube kubernetes.Interface, pod *v1.Pod, node string) {
	t.Helper()
	b := &v1.Binding{
		ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
		Target:     v1.ObjectReference{Kind: "Node", Name: node},
	}
	if err := kube.CoreV1().Pods(pod.Namespace).Bind(t.Context(), b, metav1.CreateOptions{}); err != nil {
		t.Fatalf("binding %s to %s: %v", pod.Name, node, err)
	}
}

// waitRunning waits until want pods of the set are bound and Running.
func waitRunning(t *testing.T, tc *harness.Test, prefix string, want int) {
	t.Helper()
	harness.Eventually(t, 30*time.Second, func() (bool, string) {
		n := tc.CountPods(prefix, harness.Running)
		return n == want, fmt.Sprintf("%d of %d %s pods Running", n, want, prefix)
	})
}
