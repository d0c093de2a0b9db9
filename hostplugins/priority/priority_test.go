package priority

import (
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/testutil"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

var (
	cpu1 = testutil.Res("cpu", "1", "memory", "1Gi")
	conf = testutil.Tier(Name)
)

func registry(t *testing.T) framework.Registry {
	return testutil.Registry(t, map[string]framework.Factory{Name: New})
}

// open builds a cluster with job "ns/a" (priority aPrio) and job "ns/b"
// (priority bPrio) in queue q, from the given pods.
func open(t *testing.T, aPrio, bPrio int32, pods ...*v1.Pod) *framework.Session {
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
	ci, err := c.Build()
	if err != nil {
		t.Fatal(err)
	}
	ci.Jobs["ns/a"].Priority = aPrio
	ci.Jobs["ns/b"].Priority = bPrio
	ssn, _ := testutil.OpenOn(t, ci, registry(t), conf)
	return ssn
}

func TestJobOrder(t *testing.T) {
	tests := []struct {
		name         string
		aPrio, bPrio int32
		aFirst       bool
	}{
		{"higher priority job goes first", 10, 1, true},
		{"lower priority job goes after", 1, 10, false},
		// Equal priorities fall through to creation time, then UID: a < b.
		{"equal priorities leave the default order", 5, 5, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ssn := open(t, tc.aPrio, tc.bPrio)
			a, b := testutil.Job(t, ssn, "ns/a"), testutil.Job(t, ssn, "ns/b")
			if got := ssn.JobOrderFn(a, b); got != tc.aFirst {
				t.Errorf("a before b = %v, want %v", got, tc.aFirst)
			}
			if got := ssn.JobOrderFn(b, a); got == tc.aFirst {
				t.Errorf("b before a = %v, want %v", got, !tc.aFirst)
			}
		})
	}
}

func TestTaskOrder(t *testing.T) {
	ssn := open(t, 1, 1,
		testutil.WithPriority(testutil.Pod("ns", "low", "a", "", cpu1), 1),
		testutil.WithPriority(testutil.Pod("ns", "high", "a", "", cpu1), 100),
	)
	low, high := testutil.Task(t, ssn, "ns/low"), testutil.Task(t, ssn, "ns/high")
	if !ssn.TaskOrderFn(high, low) || ssn.TaskOrderFn(low, high) {
		t.Errorf("the task with priority 100 should be placed before the one with 1")
	}
}

func TestPreemptable(t *testing.T) {
	tests := []struct {
		name         string
		aPrio, bPrio int32
		// the preemptor is ns/p in job a with priority 10
		victims []string
	}{
		{"a lower-priority job's task may be preempted", 10, 1, []string{"ns/b-run", "ns/a-low"}},
		{"an equal-priority job's task may not", 10, 10, []string{"ns/a-low"}},
		{"a higher-priority job's task may not", 1, 10, []string{"ns/a-low"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ssn := open(t, tc.aPrio, tc.bPrio,
				testutil.WithPriority(testutil.Pod("ns", "p", "a", "", cpu1), 10),
				testutil.WithPriority(testutil.Pod("ns", "a-low", "a", "n1", cpu1), 5),
				testutil.WithPriority(testutil.Pod("ns", "a-high", "a", "n1", cpu1), 10),
				testutil.WithPriority(testutil.Pod("ns", "b-run", "b", "n1", cpu1), 1000),
			)
			preemptor := testutil.Task(t, ssn, "ns/p")
			candidates := []*api.TaskInfo{
				testutil.Task(t, ssn, "ns/a-low"),
				testutil.Task(t, ssn, "ns/a-high"),
				testutil.Task(t, ssn, "ns/b-run"),
			}
			got := testutil.Keys(ssn.Preemptable(preemptor, candidates))
			want := slices.Sorted(slices.Values(tc.victims))
			if !slices.Equal(got, want) {
				t.Errorf("victims = %v, want %v", got, want)
			}
		})
	}
}

func TestPreemptableVetoesWhenNothingQualifies(t *testing.T) {
	ssn := open(t, 1, 10,
		testutil.WithPriority(testutil.Pod("ns", "p", "a", "", cpu1), 10),
		testutil.Pod("ns", "b-run", "b", "n1", cpu1),
	)
	got := ssn.Preemptable(testutil.Task(t, ssn, "ns/p"), []*api.TaskInfo{testutil.Task(t, ssn, "ns/b-run")})
	if len(got) != 0 {
		t.Errorf("a priority-1 job must not preempt a priority-10 job, got victims %v", testutil.Keys(got))
	}
}

func TestJobStarving(t *testing.T) {
	tests := []struct {
		name     string
		pods     []*v1.Pod
		starving bool
	}{
		{"a job with a pending task is starving even above minAvailable", []*v1.Pod{
			testutil.Pod("ns", "a-0", "a", "n1", cpu1),
			testutil.Pod("ns", "a-1", "a", "n1", cpu1),
			testutil.Pod("ns", "a-2", "a", "", cpu1),
		}, true},
		{"a job with every task running is not starving", []*v1.Pod{
			testutil.Pod("ns", "a-0", "a", "n1", cpu1),
			testutil.Pod("ns", "a-1", "a", "n1", cpu1),
		}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ssn := open(t, 1, 1, tc.pods...)
			if got := ssn.JobStarving(testutil.Job(t, ssn, "ns/a")); got != tc.starving {
				t.Errorf("starving = %v, want %v", got, tc.starving)
			}
		})
	}
}
