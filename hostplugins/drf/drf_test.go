package drf

import (
	"math"
	"testing"

	v1 "k8s.io/api/core/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/testutil"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// open builds one 8-cpu, 8Gi node and jobs ns/a and ns/b in one queue.
func open(t *testing.T, pods ...*v1.Pod) *framework.Session {
	t.Helper()
	c := testutil.Cluster{
		Queues: []*v1beta1.Queue{testutil.Queue("q", 1)},
		Nodes:  []*v1.Node{testutil.Node("n1", testutil.Res("cpu", "8", "memory", "8Gi", "pods", "110"))},
		PodGroups: []*v1beta1.PodGroup{
			testutil.PodGroup("ns", "a", "q", 1, v1beta1.PodGroupRunning),
			testutil.PodGroup("ns", "b", "q", 1, v1beta1.PodGroupRunning),
		},
		Pods: pods,
	}
	ssn, _ := testutil.Open(t, c, testutil.Registry(t, map[string]framework.Factory{Name: New}), testutil.Tier(Name))
	return ssn
}

func TestShareIsTheLargestFractionOfAnyResource(t *testing.T) {
	ssn := open(t,
		testutil.Pod("ns", "a-0", "a", "n1", testutil.Res("cpu", "1", "memory", "4Gi")),
		testutil.Pod("ns", "b-0", "b", "n1", testutil.Res("cpu", "2", "memory", "1Gi")),
	)
	p := testutil.Instance[*Plugin](t, ssn)
	for job, want := range map[api.JobID]float64{"ns/a": 0.5, "ns/b": 0.25} {
		if got := p.share(job); math.Abs(got-want) > 1e-9 {
			t.Errorf("share of %s = %v, want %v (its dominant resource)", job, got, want)
		}
	}
}

func TestJobOrderFollowsShares(t *testing.T) {
	ssn := open(t,
		testutil.Pod("ns", "a-0", "a", "n1", testutil.Res("cpu", "1", "memory", "1Gi")),
		testutil.Pod("ns", "a-1", "a", "", testutil.Res("cpu", "2", "memory", "1Gi")),
		testutil.Pod("ns", "b-0", "b", "n1", testutil.Res("cpu", "2", "memory", "1Gi")),
	)
	a, b := testutil.Job(t, ssn, "ns/a"), testutil.Job(t, ssn, "ns/b")
	if !ssn.JobOrderFn(a, b) {
		t.Fatalf("job a (1/8 of the cpu) should go before job b (2/8)")
	}

	// Placing a's second task raises its share to 3/8: b goes first now,
	// and undoing the placement restores the order.
	stmt := framework.NewStatement(ssn)
	if err := stmt.Allocate(testutil.Task(t, ssn, "ns/a-1"), ssn.Nodes["n1"]); err != nil {
		t.Fatal(err)
	}
	if !ssn.JobOrderFn(b, a) {
		t.Errorf("after a's allocation, job b should go first")
	}
	stmt.Discard()
	if !ssn.JobOrderFn(a, b) {
		t.Errorf("after the discard, job a should go first again")
	}
}

func TestPreemptable(t *testing.T) {
	tests := []struct {
		name string
		// b's running tasks, each 2 cpu; a holds 1 cpu and preempts for 1 more
		bTasks  int
		victims int
	}{
		// a would hold 2/8; b loses 2 cpu per victim: 6/8 -> 4/8 -> 2/8 -> 0.
		{"victims while the victim job keeps at least the preemptor's share", 3, 2},
		{"a job that would fall below the preemptor's share keeps its task", 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pods := []*v1.Pod{
				testutil.Pod("ns", "a-0", "a", "n1", testutil.Res("cpu", "1")),
				testutil.Pod("ns", "a-1", "a", "", testutil.Res("cpu", "1")),
			}
			for i := range tc.bTasks {
				pods = append(pods, testutil.Pod("ns", "b-"+string(rune('0'+i)), "b", "n1", testutil.Res("cpu", "2")))
			}
			ssn := open(t, pods...)
			var candidates []*api.TaskInfo
			for i := range tc.bTasks {
				candidates = append(candidates, testutil.Task(t, ssn, "ns/b-"+string(rune('0'+i))))
			}
			got := ssn.Preemptable(testutil.Task(t, ssn, "ns/a-1"), candidates)
			if len(got) != tc.victims {
				t.Errorf("victims = %v, want %d of them", testutil.Keys(got), tc.victims)
			}
		})
	}
}
