package proportion

import (
	"fmt"
	"math"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/testutil"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

var node8 = testutil.Node("n1", testutil.Res("cpu", "8", "memory", "8Gi", "pods", "110"))

func registry(t *testing.T) framework.Registry {
	return testutil.Registry(t, map[string]framework.Factory{Name: New})
}

// pods returns n pods of one PodGroup, each asking for req, running on n1 or
// pending.
func pods(pg string, n int, node string, req v1.ResourceList) []*v1.Pod {
	state := "wait"
	if node != "" {
		state = "run"
	}
	var out []*v1.Pod
	for i := range n {
		out = append(out, testutil.Pod("ns", fmt.Sprintf("%s-%s-%d", pg, state, i), pg, node, req))
	}
	return out
}

func cpuOf(t *testing.T, ssn *framework.Session, q api.QueueID) float64 {
	t.Helper()
	a := testutil.Instance[*Plugin](t, ssn).queues[q]
	if a == nil {
		t.Fatalf("queue %s has no accounting", q)
	}
	return a.deserved.MilliCPU
}

func TestDeserved(t *testing.T) {
	lots := pods("pg1", 8, "", testutil.Res("cpu", "1", "memory", "1Gi"))
	lots2 := pods("pg2", 8, "", testutil.Res("cpu", "1", "memory", "1Gi"))
	tests := []struct {
		name   string
		q1, q2 *v1beta1.Queue
		pods   []*v1.Pod
		want1  float64 // deserved milli-cpu
		want2  float64
	}{
		{
			name: "weights 1:3 split the cluster 2:6",
			q1:   testutil.Queue("q1", 1), q2: testutil.Queue("q2", 3),
			pods:  append(lots, lots2...),
			want1: 2000, want2: 6000,
		},
		{
			name: "what a capability caps goes to the other queue",
			q1: func() *v1beta1.Queue {
				q := testutil.Queue("q1", 1)
				q.Spec.Capability = testutil.Res("cpu", "2")
				return q
			}(),
			q2:    testutil.Queue("q2", 1),
			pods:  append(lots, lots2...),
			want1: 2000, want2: 6000,
		},
		{
			name: "a guarantee is deserved whatever the weight",
			q1: func() *v1beta1.Queue {
				q := testutil.Queue("q1", 1)
				q.Spec.Guarantee.Resource = testutil.Res("cpu", "4")
				return q
			}(),
			q2:    testutil.Queue("q2", 3),
			pods:  append(lots, lots2...),
			want1: 4000, want2: 4000,
		},
		{
			name: "a queue deserves no more than it asks for",
			q1:   testutil.Queue("q1", 1), q2: testutil.Queue("q2", 1),
			pods:  append(pods("pg1", 1, "", testutil.Res("cpu", "1", "memory", "1Gi")), lots2...),
			want1: 1000, want2: 7000,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := testutil.Cluster{
				Queues: []*v1beta1.Queue{tc.q1, tc.q2},
				Nodes:  []*v1.Node{node8},
				PodGroups: []*v1beta1.PodGroup{
					testutil.PodGroup("ns", "pg1", "q1", 1, v1beta1.PodGroupInqueue),
					testutil.PodGroup("ns", "pg2", "q2", 1, v1beta1.PodGroupInqueue),
				},
				Pods: tc.pods,
			}
			ssn, _ := testutil.Open(t, c, registry(t), testutil.Tier(Name))
			if got := cpuOf(t, ssn, "q1"); math.Abs(got-tc.want1) > 1e-6 {
				t.Errorf("q1 deserves %v milli-cpu, want %v", got, tc.want1)
			}
			if got := cpuOf(t, ssn, "q2"); math.Abs(got-tc.want2) > 1e-6 {
				t.Errorf("q2 deserves %v milli-cpu, want %v", got, tc.want2)
			}
		})
	}
}

// openBusy opens a session where q1 (weight 1) runs six 1-cpu tasks and q2
// (weight 1) waits with eight: each deserves 4 cpu, so q1 is over its share.
func openBusy(t *testing.T, q2State v1beta1.QueueState) *framework.Session {
	t.Helper()
	q2 := testutil.Queue("q2", 1)
	q2.Status.State = q2State
	cpu1 := testutil.Res("cpu", "1")
	c := testutil.Cluster{
		Queues: []*v1beta1.Queue{testutil.Queue("q1", 1), q2},
		Nodes:  []*v1.Node{node8},
		PodGroups: []*v1beta1.PodGroup{
			testutil.PodGroup("ns", "pg1", "q1", 1, v1beta1.PodGroupRunning),
			testutil.PodGroup("ns", "pg2", "q2", 1, v1beta1.PodGroupInqueue),
		},
		Pods: append(pods("pg1", 6, "n1", cpu1), pods("pg2", 8, "", cpu1)...),
	}
	ssn, _ := testutil.Open(t, c, registry(t), testutil.Tier(Name))
	return ssn
}

func TestOverusedAndAllocatable(t *testing.T) {
	ssn := openBusy(t, v1beta1.QueueStateOpen)
	q1, q2 := ssn.Queues["q1"], ssn.Queues["q2"]
	waiting := testutil.Task(t, ssn, "ns/pg2-wait-0")

	if !ssn.Overused(q1) {
		t.Errorf("q1 holds 6 cpu of its deserved 4: it should be overused")
	}
	if ssn.Overused(q2) {
		t.Errorf("q2 holds nothing: it should not be overused")
	}
	if ssn.Allocatable(q1, waiting) {
		t.Errorf("q1 is over its share: it should not take another 1-cpu task")
	}
	if !ssn.Allocatable(q2, waiting) {
		t.Errorf("q2 is under its share: it should take a 1-cpu task")
	}
	if !ssn.Preemptive(q2, []*api.TaskInfo{waiting, testutil.Task(t, ssn, "ns/pg2-wait-1")}) {
		t.Errorf("q2 may reclaim for 2 cpu within its 4")
	}

	// Placing four of q2's tasks fills its cpu share; undoing them empties
	// it. q2 is still not overused: as in Volcano the "pods" dimension counts
	// too, and q2 deserves a pod slot for each of its 8 tasks.
	stmt := framework.NewStatement(ssn)
	for i := range 4 {
		if err := stmt.Allocate(testutil.Task(t, ssn, fmt.Sprintf("ns/pg2-wait-%d", i)), ssn.Nodes["n1"]); err != nil {
			t.Fatal(err)
		}
	}
	next := testutil.Task(t, ssn, "ns/pg2-wait-4")
	if ssn.Allocatable(q2, next) {
		t.Errorf("after 4 allocations q2 holds its 4 cpu: it should not take a fifth")
	}
	if ssn.Overused(q2) {
		t.Errorf("q2 holds 4 of the 8 pod slots it deserves: it should not be overused")
	}
	stmt.Discard()
	if !ssn.Allocatable(q2, next) {
		t.Errorf("after the discard q2 holds nothing again and should take the task")
	}
}

func TestClosedQueueTakesNothing(t *testing.T) {
	ssn := openBusy(t, v1beta1.QueueStateClosed)
	if ssn.Allocatable(ssn.Queues["q2"], testutil.Task(t, ssn, "ns/pg2-wait-0")) {
		t.Errorf("a closed queue should not be allocatable")
	}
	if ssn.JobEnqueueable(testutil.Job(t, ssn, "ns/pg2")) {
		t.Errorf("a closed queue should not admit jobs")
	}
}

func TestReclaimTakesOnlyTheOverShare(t *testing.T) {
	ssn := openBusy(t, v1beta1.QueueStateOpen)
	var candidates []*api.TaskInfo
	for i := range 6 {
		candidates = append(candidates, testutil.Task(t, ssn, fmt.Sprintf("ns/pg1-run-%d", i)))
	}
	got := ssn.Reclaimable(testutil.Task(t, ssn, "ns/pg2-wait-0"), candidates)
	if want := []string{"ns/pg1-run-0", "ns/pg1-run-1"}; fmt.Sprint(testutil.Keys(got)) != fmt.Sprint(want) {
		t.Errorf("victims = %v, want %v (q1 back to its deserved 4 cpu)", testutil.Keys(got), want)
	}
}

func TestQueueOrder(t *testing.T) {
	ssn := openBusy(t, v1beta1.QueueStateOpen)
	q1, q2 := ssn.Queues["q1"], ssn.Queues["q2"]
	if !ssn.QueueOrderFn(q2, q1) {
		t.Errorf("q2 (share 0) should be served before q1 (share 1.5)")
	}
	q1.Priority = 10
	if !ssn.QueueOrderFn(q1, q2) {
		t.Errorf("a higher queue priority should win over a smaller share")
	}
}

func withMin(pg *v1beta1.PodGroup, rl v1.ResourceList) *v1beta1.PodGroup {
	pg.Spec.MinResources = &rl
	return pg
}

func TestEnqueue(t *testing.T) {
	q1 := testutil.Queue("q1", 1)
	q1.Spec.Capability = testutil.Res("cpu", "4")
	c := testutil.Cluster{
		Queues: []*v1beta1.Queue{q1},
		Nodes:  []*v1.Node{node8},
		PodGroups: []*v1beta1.PodGroup{
			withMin(testutil.PodGroup("ns", "run", "q1", 1, v1beta1.PodGroupRunning), testutil.Res("cpu", "1")),
			withMin(testutil.PodGroup("ns", "j1", "q1", 1, v1beta1.PodGroupPending), testutil.Res("cpu", "2")),
			withMin(testutil.PodGroup("ns", "j2", "q1", 1, v1beta1.PodGroupPending), testutil.Res("cpu", "2")),
			testutil.PodGroup("ns", "besteffort", "q1", 1, v1beta1.PodGroupPending),
		},
		Pods: []*v1.Pod{
			testutil.Pod("ns", "run-0", "run", "n1", testutil.Res("cpu", "1")),
			testutil.Pod("ns", "j1-0", "j1", "", testutil.Res("cpu", "2")),
			testutil.Pod("ns", "j2-0", "j2", "", testutil.Res("cpu", "2")),
		},
	}
	ssn, cache := testutil.Open(t, c, registry(t), testutil.Tier(Name))
	steps := []struct {
		job   string
		admit bool
		why   string
	}{
		{"ns/j1", true, "1 cpu held + 2 asked fits the 4-cpu capability"},
		{"ns/j2", false, "1 held + 2 admitted for j1 + 2 asked exceeds 4"},
		{"ns/besteffort", true, "a job without minResources is always admitted"},
	}
	for _, s := range steps {
		job := testutil.Job(t, ssn, s.job)
		if got := ssn.JobEnqueueable(job); got != s.admit {
			t.Errorf("%s admitted = %v, want %v: %s", s.job, got, s.admit, s.why)
		}
		if s.admit {
			ssn.JobEnqueued(job)
		}
	}
	// Volcano's words for the refusal, on j2's PodGroup.
	if want := []string{"ns/j2 Normal Unschedulable queue resource quota insufficient: insufficient cpu"}; !slices.Equal(cache.Events, want) {
		t.Errorf("events %q, want %q", cache.Events, want)
	}
}

// The acceptance case enqueue-cpu-only-job, from Volcano's proportion tests:
// a job that asks only for cpu is admitted and placed even though its queue
// holds all the memory it deserves.
func TestCPUOnlyJobIgnoresExhaustedMemory(t *testing.T) {
	q1, q2 := testutil.Queue("q1", 1), testutil.Queue("q2", 1)
	q1.Spec.Capability = testutil.Res("cpu", "2", "memory", "2G")
	q2.Spec.Capability = testutil.Res("cpu", "3", "memory", "3G")
	c := testutil.Cluster{
		Queues: []*v1beta1.Queue{q1, q2},
		Nodes: []*v1.Node{
			testutil.Node("n1", testutil.Res("cpu", "2", "memory", "2G", "pods", "10")),
			testutil.Node("n2", testutil.Res("cpu", "2", "memory", "2G", "pods", "10")),
		},
		PodGroups: []*v1beta1.PodGroup{
			withMin(testutil.PodGroup("ns", "pg1", "q1", 1, v1beta1.PodGroupRunning), testutil.Res("cpu", "1", "memory", "2G")),
			withMin(testutil.PodGroup("ns", "pg2", "q2", 1, v1beta1.PodGroupRunning), testutil.Res("cpu", "2", "memory", "1G")),
			withMin(testutil.PodGroup("ns", "pg3", "q1", 1, v1beta1.PodGroupPending), testutil.Res("cpu", "1", "memory", "0G")),
		},
		Pods: []*v1.Pod{
			testutil.Pod("ns", "pod1", "pg1", "n1", testutil.Res("cpu", "1", "memory", "2G")),
			testutil.Pod("ns", "pod2", "pg2", "n2", testutil.Res("cpu", "2", "memory", "1G")),
			testutil.Pod("ns", "pod3", "pg3", "", testutil.Res("cpu", "1", "memory", "0G")),
		},
	}
	ssn, _ := testutil.Open(t, c, registry(t), testutil.Tier(Name))
	if !ssn.JobEnqueueable(testutil.Job(t, ssn, "ns/pg3")) {
		t.Errorf("pg3 should be admitted")
	}
	if !ssn.Allocatable(ssn.Queues["q1"], testutil.Task(t, ssn, "ns/pod3")) {
		t.Errorf("pod3 should be allocatable in q1")
	}
}
