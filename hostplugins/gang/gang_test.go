package gang

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/testutil"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

var cpu1 = testutil.Res("cpu", "1", "memory", "1Gi")

// gangOf returns n pods of PodGroup pg, the first running ones on n1 and the
// rest pending.
func gangOf(pg string, running, pending int) []*v1.Pod {
	var pods []*v1.Pod
	for i := range running + pending {
		node := ""
		if i < running {
			node = "n1"
		}
		pods = append(pods, testutil.Pod("ns", pg+"-task-"+string(rune('0'+i)), pg, node, cpu1))
	}
	return pods
}

func open(t *testing.T, groups []*v1beta1.PodGroup, pods ...*v1.Pod) *framework.Session {
	t.Helper()
	c := testutil.Cluster{
		Queues:    []*v1beta1.Queue{testutil.Queue("q", 1)},
		Nodes:     []*v1.Node{testutil.Node("n1", testutil.Res("cpu", "16", "memory", "16Gi", "pods", "110"))},
		PodGroups: groups,
		Pods:      pods,
	}
	ssn, _ := testutil.Open(t, c, testutil.Registry(t, map[string]framework.Factory{Name: New}), testutil.Tier(Name))
	return ssn
}

func pg(name string, minMember int32) *v1beta1.PodGroup {
	return testutil.PodGroup("ns", name, "q", minMember, v1beta1.PodGroupInqueue)
}

func TestJobValid(t *testing.T) {
	tests := []struct {
		name       string
		minMember  int32
		minPerRole map[string]int32
		pods       []*v1.Pod
		reason     string // "" means valid
		message    string
	}{
		{name: "enough tasks", minMember: 3, pods: gangOf("pg", 1, 2)},
		{name: "fewer tasks than minAvailable", minMember: 3, pods: gangOf("pg", 0, 2),
			reason: v1beta1.NotEnoughPodsReason, message: "Not enough valid tasks for gang-scheduling, valid: 2, min: 3"},
		{name: "a role below its minTaskMember", minMember: 2, minPerRole: map[string]int32{"worker": 2}, pods: gangOf("pg", 0, 2),
			reason: v1beta1.NotEnoughPodsOfTaskReason, message: "Not enough valid pods of each task for gang-scheduling"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			group := pg("pg", tc.minMember)
			group.Spec.MinTaskMember = tc.minPerRole
			ssn := open(t, []*v1beta1.PodGroup{group}, tc.pods...)
			res := ssn.JobValid(testutil.Job(t, ssn, "ns/pg"))
			switch {
			case tc.reason == "" && res != nil:
				t.Fatalf("job rejected: %+v", res)
			case tc.reason != "" && res == nil:
				t.Fatalf("job accepted, want rejection %s", tc.reason)
			case tc.reason != "" && (res.Pass || res.Reason != tc.reason || res.Message != tc.message):
				t.Errorf("got %+v, want reason %q message %q", res, tc.reason, tc.message)
			}
		})
	}
}

func TestJobReadyAndPipelined(t *testing.T) {
	tests := []struct {
		name      string
		running   int
		pending   int
		pipelined int // of the pending ones, pipelined this session
		ready     bool
		pipeline  bool
		starving  bool
	}{
		{name: "2 of minAvailable 3 running is not ready", running: 2, pending: 1, ready: false, pipeline: false, starving: true},
		{name: "3 of minAvailable 3 running is ready", running: 3, pending: 1, ready: true, pipeline: true, starving: false},
		{name: "2 running and 1 pipelined is pipelined but not ready", running: 2, pending: 1, pipelined: 1, ready: false, pipeline: true, starving: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ssn := open(t, []*v1beta1.PodGroup{pg("pg", 3)}, gangOf("pg", tc.running, tc.pending)...)
			job := testutil.Job(t, ssn, "ns/pg")
			stmt := framework.NewStatement(ssn)
			for i := range tc.pipelined {
				task := testutil.Task(t, ssn, "ns/pg-task-"+string(rune('0'+tc.running+i)))
				if err := stmt.Pipeline(task, "n1", false); err != nil {
					t.Fatal(err)
				}
			}
			if got := ssn.JobReady(job); got != tc.ready {
				t.Errorf("ready = %v, want %v", got, tc.ready)
			}
			if got := ssn.JobPipelined(job); got != tc.pipeline {
				t.Errorf("pipelined = %v, want %v", got, tc.pipeline)
			}
			if got := ssn.JobStarving(job); got != tc.starving {
				t.Errorf("starving = %v, want %v", got, tc.starving)
			}
		})
	}
}

func TestJobOrderPutsUnreadyJobsFirst(t *testing.T) {
	pods := append(gangOf("ready", 2, 0), gangOf("waiting", 0, 2)...)
	ssn := open(t, []*v1beta1.PodGroup{pg("ready", 2), pg("waiting", 2)}, pods...)
	ready, waiting := testutil.Job(t, ssn, "ns/ready"), testutil.Job(t, ssn, "ns/waiting")
	if !ssn.JobOrderFn(waiting, ready) || ssn.JobOrderFn(ready, waiting) {
		t.Errorf("the job that is not ready yet should be served before the ready one")
	}
}

func TestVictimsKeepMinAvailable(t *testing.T) {
	tests := []struct {
		name      string
		minMember int32
		running   int
		victims   int
	}{
		{"a job above its minimum gives up only the surplus", 2, 4, 2},
		{"a job at its minimum gives up nothing", 3, 3, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ssn := open(t, []*v1beta1.PodGroup{pg("victim", tc.minMember), pg("preemptor", 1)},
				append(gangOf("victim", tc.running, 0), gangOf("preemptor", 0, 1)...)...)
			preemptor := testutil.Task(t, ssn, "ns/preemptor-task-0")
			var candidates []*api.TaskInfo
			for _, task := range testutil.Job(t, ssn, "ns/victim").Tasks {
				candidates = append(candidates, task)
			}
			if got := ssn.Preemptable(preemptor, candidates); len(got) != tc.victims {
				t.Errorf("preempt victims = %v, want %d", testutil.Keys(got), tc.victims)
			}
			if got := ssn.Reclaimable(preemptor, candidates); len(got) != tc.victims {
				t.Errorf("reclaim victims = %v, want %d", testutil.Keys(got), tc.victims)
			}
		})
	}
}

func condition(job *api.JobInfo, ct v1beta1.PodGroupConditionType) *v1beta1.PodGroupCondition {
	for i := range job.PodGroup.Status.Conditions {
		if job.PodGroup.Status.Conditions[i].Type == ct {
			return &job.PodGroup.Status.Conditions[i]
		}
	}
	return nil
}

func TestSessionCloseConditions(t *testing.T) {
	tests := []struct {
		name string
		// placed pending tasks allocated in a statement; discard undoes them
		placed  int
		discard bool
		want    v1beta1.PodGroupConditionType
		reason  string
		prefix  string
	}{
		{name: "a gang that could not be placed is unschedulable", want: v1beta1.PodGroupUnschedulableType,
			reason: v1beta1.NotEnoughResourcesReason, prefix: "3/3 tasks in gang unschedulable: pod group is not ready"},
		{name: "tasks placed then discarded count as schedulable", placed: 2, discard: true, want: v1beta1.PodGroupUnschedulableType,
			reason: v1beta1.NotEnoughResourcesReason, prefix: "1/3 tasks in gang unschedulable: pod group is not ready"},
		{name: "a placed gang is scheduled", placed: 3, want: v1beta1.PodGroupScheduled, reason: readyReason},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ssn := open(t, []*v1beta1.PodGroup{pg("pg", 3)}, gangOf("pg", 0, 3)...)
			job := testutil.Job(t, ssn, "ns/pg")
			stmt := framework.NewStatement(ssn)
			for i := range tc.placed {
				task := testutil.Task(t, ssn, "ns/pg-task-"+string(rune('0'+i)))
				if err := stmt.Allocate(task, ssn.Nodes["n1"]); err != nil {
					t.Fatal(err)
				}
			}
			if tc.discard {
				stmt.Discard()
			}
			ssn.Close()
			c := condition(job, tc.want)
			if c == nil {
				t.Fatalf("no %s condition in %+v", tc.want, job.PodGroup.Status.Conditions)
			}
			if c.Status != v1.ConditionTrue || c.Reason != tc.reason || !strings.HasPrefix(c.Message, tc.prefix) {
				t.Errorf("condition = %s %q %q, want True %q %q...", c.Status, c.Reason, c.Message, tc.reason, tc.prefix)
			}
		})
	}
}

func TestSessionCloseLeavesJobsShortOnlyByReleasingPods(t *testing.T) {
	pods := gangOf("pg", 2, 0)
	now := pods[1].CreationTimestamp
	pods[1].DeletionTimestamp = &now // being deleted, still on its node
	ssn := open(t, []*v1beta1.PodGroup{pg("pg", 2)}, pods...)
	job := testutil.Job(t, ssn, "ns/pg")
	ssn.Close()
	if got := job.PodGroup.Status.Conditions; len(got) != 0 {
		t.Errorf("conditions = %+v, want none", got)
	}
}
