package tasktopology

import (
	"math"
	"sort"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/testutil"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// tfJob is a pending job of two parameter servers and four workers (1 CPU
// each) with the given PodGroup annotations, on nodes of the given CPUs.
func tfJob(t *testing.T, anns map[string]string, nodeCPUs ...string) (*framework.Session, *testutil.Cache) {
	t.Helper()
	pg := testutil.PodGroup("ns", "tf", "q", 1, v1beta1.PodGroupInqueue)
	pg.Annotations = anns
	c := testutil.Cluster{Queues: []*v1beta1.Queue{testutil.Queue("q", 1)}, PodGroups: []*v1beta1.PodGroup{pg}}
	for i, cpu := range nodeCPUs {
		c.Nodes = append(c.Nodes, testutil.Node("n"+string(rune('1'+i)), testutil.Res("cpu", cpu, "memory", "8Gi", "pods", "110")))
	}
	for _, name := range []string{"ps-0", "ps-1", "worker-0", "worker-1", "worker-2", "worker-3"} {
		p := testutil.Pod("ns", "tf-"+name, "tf", "", testutil.Res("cpu", "1"))
		p.Annotations[api.TaskSpecKey] = strings.Split(name, "-")[0]
		c.Pods = append(c.Pods, p)
	}
	registry := testutil.Registry(t, map[string]framework.Factory{Name: New})
	return testutil.Open(t, c, registry, testutil.Tier(Name))
}

var psWorker = map[string]string{AffinityAnnotation: "ps,worker", AntiAffinityAnnotation: "ps"}

// bucketsOf lists each bucket's pending pods in bucket order.
func bucketsOf(m *jobManager) [][]string {
	var out [][]string
	for _, b := range m.buckets {
		var names []string
		for _, p := range b.pending {
			names = append(names, p.task.Name)
		}
		out = append(out, names)
	}
	return out
}

func TestBucketsKeepParameterServersApartWithWorkersShared(t *testing.T) {
	ssn, _ := tfJob(t, psWorker, "8", "8")
	p := testutil.Instance[*Plugin](t, ssn)
	m := p.managers["ns/tf"]
	if m == nil {
		t.Fatal("no buckets for the job")
	}
	// ps has anti-affinity with itself, so each gets a bucket; workers are
	// drawn to both alike and go to the bucket asking less.
	want := [][]string{{"tf-ps-0", "tf-worker-0", "tf-worker-2"}, {"tf-ps-1", "tf-worker-1", "tf-worker-3"}}
	if got := bucketsOf(m); !equal(got, want) {
		t.Fatalf("buckets %v, want %v", got, want)
	}

	var tasks []*api.TaskInfo
	for _, task := range ssn.Jobs["ns/tf"].Tasks {
		tasks = append(tasks, task)
	}
	sort.Slice(tasks, func(i, j int) bool { return ssn.TaskOrderFn(tasks[i], tasks[j]) })
	var order []string
	for _, task := range tasks {
		order = append(order, task.Name)
	}
	wantOrder := "tf-ps-0 tf-worker-0 tf-worker-2 tf-ps-1 tf-worker-1 tf-worker-3"
	if got := strings.Join(order, " "); got != wantOrder {
		t.Fatalf("task order %s, want %s", got, wantOrder)
	}
}

func score(t *testing.T, ssn *framework.Session, pod, node string) float64 {
	t.Helper()
	s, err := testutil.Instance[*Plugin](t, ssn).NodeOrder(testutil.Task(t, ssn, "ns/"+pod), ssn.Nodes[node])
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestScoresFollowAllocationsAndTheirUndoing(t *testing.T) {
	ssn, _ := tfJob(t, psWorker, "8", "8")
	// An empty node that holds the whole bucket: its 3 pending pods, out of
	// the largest bucket's 3.
	if got := score(t, ssn, "tf-ps-0", "n1"); got != 100 {
		t.Fatalf("ps-0 on n1 scores %v, want 100", got)
	}
	stmt := framework.NewStatement(ssn)
	if err := stmt.Allocate(testutil.Task(t, ssn, "ns/tf-ps-0"), ssn.Nodes["n1"]); err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		pod, node string
		want      float64
	}{
		{"tf-worker-0", "n1", 100},       // its bucket's ps there + 2 pending
		{"tf-worker-0", "n2", 200.0 / 3}, // 2 pending
		{"tf-ps-1", "n1", 200.0 / 3},     // 3 pending, less the ps it repels
		{"tf-ps-1", "n2", 100},
	}
	for _, c := range checks {
		if got := score(t, ssn, c.pod, c.node); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s on %s scores %v, want %v", c.pod, c.node, got, c.want)
		}
	}
	stmt.Discard()
	if got := score(t, ssn, "tf-ps-1", "n1"); got != 100 {
		t.Fatalf("after the discard ps-1 on n1 scores %v, want 100", got)
	}
	if got := score(t, ssn, "tf-worker-0", "n1"); got != 100 {
		t.Fatalf("after the discard worker-0 on n1 scores %v, want 100 (3 pending)", got)
	}
}

func TestANodeThatCannotHoldTheBucketScoresLess(t *testing.T) {
	// n1 holds 2 of the bucket's 3 CPUs: one pod other than the scored one
	// is left out.
	ssn, _ := tfJob(t, psWorker, "2", "8")
	if got := score(t, ssn, "tf-ps-0", "n1"); math.Abs(got-200.0/3) > 1e-9 {
		t.Fatalf("ps-0 on n1 scores %v, want 66.67", got)
	}
	if got := score(t, ssn, "tf-ps-0", "n2"); got != 100 {
		t.Fatalf("ps-0 on n2 scores %v, want 100", got)
	}
}

func TestTheWeightScalesScores(t *testing.T) {
	pg := testutil.PodGroup("ns", "tf", "q", 1, v1beta1.PodGroupInqueue)
	pg.Annotations = map[string]string{AntiAffinityAnnotation: "ps"}
	p := testutil.Pod("ns", "tf-ps-0", "tf", "", testutil.Res("cpu", "1"))
	p.Annotations[api.TaskSpecKey] = "ps"
	c := testutil.Cluster{
		Queues: []*v1beta1.Queue{testutil.Queue("q", 1)}, PodGroups: []*v1beta1.PodGroup{pg},
		Nodes: []*v1.Node{testutil.Node("n1", testutil.Res("cpu", "8", "pods", "110"))}, Pods: []*v1.Pod{p},
	}
	registry := testutil.Registry(t, map[string]framework.Factory{Name: New})
	ssn, _ := testutil.Open(t, c, registry, testutil.Tier(Name)+"    arguments:\n      task-topology.weight: 3\n")
	if got := score(t, ssn, "tf-ps-0", "n1"); got != 300 {
		t.Fatalf("score %v, want 300", got)
	}
}

func TestUnusableAnnotationsAreReportedAndIgnored(t *testing.T) {
	ssn, cache := tfJob(t, map[string]string{AffinityAnnotation: "ps,chief"}, "8")
	if m := testutil.Instance[*Plugin](t, ssn).managers["ns/tf"]; m != nil {
		t.Fatalf("the job has buckets %v", bucketsOf(m))
	}
	want := `ns/tf Warning InvalidTaskTopology volcano.sh/task-topology-affinity: task "chief" does not exist in job ns/tf; the job is placed without its task-topology rules`
	if len(cache.Events) != 1 || cache.Events[0] != want {
		t.Fatalf("events %q, want %q", cache.Events, want)
	}
	if got := score(t, ssn, "tf-ps-0", "n1"); got != 0 {
		t.Fatalf("score %v, want 0", got)
	}
}

func TestUnknownArgumentsAreRefused(t *testing.T) {
	if _, err := New(framework.Arguments{"task-topology.wieght": 2}); err == nil || !strings.Contains(err.Error(), "task-topology.wieght") {
		t.Fatalf("error %v, want one naming the key", err)
	}
	if _, err := New(framework.Arguments{WeightKey: "high"}); err == nil {
		t.Fatal("a weight that is not a number was accepted")
	}
}

func equal(a, b [][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if strings.Join(a[i], ",") != strings.Join(b[i], ",") {
			return false
		}
	}
	return true
}
