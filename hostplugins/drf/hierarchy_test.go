package drf

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/testutil"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

func pathQueue(name, path, weights string) *v1beta1.Queue {
	q := testutil.Queue(name, 1)
	q.Annotations = map[string]string{v1beta1.KubeHierarchyAnnotationKey: path, v1beta1.KubeHierarchyWeightAnnotationKey: weights}
	return q
}

// openTree opens a session on one 4-cpu node where queue "busy" (root/b)
// runs four 1-cpu pods and queue "idle" (root/a) waits with one.
func openTree(t *testing.T, hierarchy bool) (*framework.Session, *Plugin) {
	t.Helper()
	cpu := testutil.Res("cpu", "1", "memory", "1Gi")
	c := testutil.Cluster{
		Queues: []*v1beta1.Queue{pathQueue("idle", "root/a", "1/1"), pathQueue("busy", "root/b", "1/1")},
		Nodes:  []*v1.Node{testutil.Node("n1", testutil.Res("cpu", "4", "memory", "8Gi", "pods", "110"))},
		PodGroups: []*v1beta1.PodGroup{
			testutil.PodGroup("ns", "wait", "idle", 1, v1beta1.PodGroupInqueue),
			testutil.PodGroup("ns", "run", "busy", 1, v1beta1.PodGroupRunning),
		},
		Pods: []*v1.Pod{
			testutil.Pod("ns", "wait-0", "wait", "", cpu),
			testutil.Pod("ns", "run-0", "run", "n1", cpu), testutil.Pod("ns", "run-1", "run", "n1", cpu),
			testutil.Pod("ns", "run-2", "run", "n1", cpu), testutil.Pod("ns", "run-3", "run", "n1", cpu),
		},
	}
	conf := "actions: reclaim\ntiers:\n- plugins:\n  - name: drf\n"
	if hierarchy {
		conf += "    enableHierarchy: true\n"
	}
	ssn, _ := testutil.Open(t, c, testutil.Registry(t, map[string]framework.Factory{Name: New}), conf)
	return ssn, testutil.Instance[*Plugin](t, ssn)
}

// The queue holding nothing goes first and may take back from the one
// holding the whole node; each candidate is weighed alone, so all four
// running pods are victims.
func TestHierarchicalReclaimWeighsEachCandidateAlone(t *testing.T) {
	ssn, p := openTree(t, true)
	defer ssn.Close()
	if got := p.QueueOrder(ssn.Queues["idle"], ssn.Queues["busy"]); got >= 0 {
		t.Errorf("QueueOrder(idle, busy) = %d, want idle first", got)
	}
	var running []*api.TaskInfo
	for _, k := range []string{"ns/run-0", "ns/run-1", "ns/run-2", "ns/run-3"} {
		running = append(running, testutil.Task(t, ssn, k))
	}
	victims, voted := p.Reclaimable(testutil.Task(t, ssn, "ns/wait-0"), running)
	if !voted || len(victims) != 4 {
		t.Errorf("Reclaimable = %d victims (voted %v), want all 4", len(victims), voted)
	}
	// And the other way round nothing is taken: the waiting queue holds
	// nothing to give.
	if victims, _ := p.Reclaimable(running[0], []*api.TaskInfo{testutil.Task(t, ssn, "ns/wait-0")}); len(victims) != 0 {
		t.Errorf("Reclaimable from the idle queue = %v, want none", victims)
	}
}

// Without enableHierarchy the plugin has no say in queue order or reclaim.
func TestFlatDRFAbstainsFromQueueOrderAndReclaim(t *testing.T) {
	ssn, p := openTree(t, false)
	defer ssn.Close()
	if got := p.QueueOrder(ssn.Queues["idle"], ssn.Queues["busy"]); got != 0 {
		t.Errorf("QueueOrder = %d, want 0", got)
	}
	if _, voted := p.Reclaimable(testutil.Task(t, ssn, "ns/wait-0"), []*api.TaskInfo{testutil.Task(t, ssn, "ns/run-0")}); voted {
		t.Error("flat drf voted on reclaim")
	}
}

// A malformed weight counts as 1 and a missing level weight too.
func TestQueuePathWeights(t *testing.T) {
	q := api.NewQueueInfo(pathQueue("q", "root/x/y", "10/abc"))
	qp := readQueuePath(q)
	if len(qp.levels) != 3 || qp.weights[0] != 10 || qp.weights[1] != 1 || qp.weights[2] != 1 {
		t.Errorf("readQueuePath = %v %v, want [root x y] [10 1 1]", qp.levels, qp.weights)
	}
}
