package extender

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/testutil"
)

// The JSON keys of Volcano v1.15's scheduler api types, as Go's encoder
// writes them (pkg/scheduler/api: TaskInfo with its embedded
// TransactionContext, NodeInfo, JobInfo, QueueInfo, Resource, NodeState,
// DisruptionBudget). An extender written against them must find every key.
var volcanoKeys = map[string]string{
	"task": "BestEffort,CustomBindErrHandlerSucceeded,DRAResreq,EvictionOccurred,HasRestartableInitContainer," +
		"InitResreq,Job,JobAllocatedHyperNode,LastTransaction,Name,Namespace,NodeName,NumaInfo,Pod,Preemptable," +
		"Priority,Resreq,ResourceClaimDRAResreq,ResourceClaimKeys,RevocableZone,SchGated,Status,TaskRole,UID,VolumeReady",
	"node": "Allocatable,BindGeneration,Capacity,Generation,Idle,ImageStates,Name,Node,NumaChgFlag,NumaInfo," +
		"NumaSchedulerInfo,OfflineJobEvicting,Others,OversubscriptionNode,OversubscriptionResource,Pipelined," +
		"Releasing,ResourceUsage,RevocableZone,State,Tasks,Used",
	"job": "Allocated,AllocatedHyperNode,Budget,CreationTimestamp,JobFitErrors,MinAvailable,MinSubJobs,Name," +
		"Namespace,NetworkTopology,NodesFitErrors,PgUID,PodGroup,Preemptable,Priority,Queue,RevocableZone," +
		"ScheduleStartTimestamp,SubJobs,TaskMinAvailable,TaskMinAvailableTotal,TaskStatusIndex,TaskToSubJob," +
		"Tasks,TotalRequest,UID,WaitingTime",
	"queue":    "Hierarchy,Name,Queue,UID,Weight,Weights",
	"resource": "Memory,MaxTaskNum,MilliCPU,ScalarResources",
	"state":    "Phase,Reason",
	"budget":   "MaxUnavailable,MinAvailable",
	// Volcano's api.PodGroup embeds the PodGroup object beside Version;
	// kind and apiVersion are left out when empty, as informers leave them.
	"podGroup": "Version,metadata,spec,status",
}

func keysOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}

func TestWireKeysAreVolcanos(t *testing.T) {
	ssn, _ := newSetup(t, false).open(t)
	e := newEncoder()
	job := e.job(testutil.Job(t, ssn, "c1/pg1"))
	node := e.node(ssn.Nodes["n1"])
	for name, v := range map[string]any{
		"task":     e.task(testutil.Task(t, ssn, "c1/p1")),
		"node":     node,
		"job":      job,
		"queue":    e.queue(ssn.Queues["q1"]),
		"resource": node.Allocatable,
		"state":    node.State,
		"budget":   job.Budget,
		"podGroup": job.PodGroup,
	} {
		want := strings.Split(volcanoKeys[name], ",")
		sort.Strings(want)
		if got := keysOf(t, v); got != strings.Join(want, ",") {
			t.Errorf("%s keys:\n got %s\nwant %s", name, got, strings.Join(want, ","))
		}
	}
}

func TestWireValues(t *testing.T) {
	ssn, _ := newSetup(t, false).open(t)
	e := newEncoder()
	b, err := json.Marshal(map[string]any{
		"job":  e.job(testutil.Job(t, ssn, "c1/pg1")),
		"node": e.node(ssn.Nodes["n1"]),
	})
	if err != nil {
		t.Fatal(err)
	}
	// Decoded the way an extender in Go would, into its own types.
	var got struct {
		Job struct {
			UID             string
			MinAvailable    int32
			TaskStatusIndex map[int]map[string]struct{ Name string }
			Tasks           map[string]struct {
				Status int
				Resreq struct {
					MilliCPU, Memory float64
					ScalarResources  map[string]float64
				}
			}
			PodGroup struct {
				Version string
				Spec    struct {
					MinMember int32  `json:"minMember"`
					Queue     string `json:"queue"`
				} `json:"spec"`
			}
		} `json:"job"`
		Node struct {
			State       struct{ Phase int }
			Used        struct{ MilliCPU float64 }
			Allocatable struct{ MilliCPU float64 }
			Tasks       map[string]struct{ Name, NodeName string }
			Node        struct {
				Metadata struct{ Name string } `json:"metadata"`
			}
		} `json:"node"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	j := got.Job
	p1 := j.Tasks["c1-p1"]
	switch {
	case j.UID != "c1/pg1" || j.MinAvailable != 1:
		t.Errorf("job %+v", j)
	case j.TaskStatusIndex[1]["c1-p1"].Name != "p1": // 1 is Pending
		t.Errorf("TaskStatusIndex %+v, want p1 under 1 (Pending)", j.TaskStatusIndex)
	case p1.Status != 1 || p1.Resreq.MilliCPU != 1000 || p1.Resreq.Memory != 1<<30 || p1.Resreq.ScalarResources["pods"] != 1:
		t.Errorf("task p1 %+v, want pending with 1000 milli-CPU, 1Gi and one pod slot", p1)
	case j.PodGroup.Version != "v1beta1" || j.PodGroup.Spec.MinMember != 1 || j.PodGroup.Spec.Queue != "q1":
		t.Errorf("PodGroup %+v", j.PodGroup)
	}
	n := got.Node
	if n.State.Phase != 1 || n.Used.MilliCPU != 2000 || n.Allocatable.MilliCPU != 4000 || n.Node.Metadata.Name != "n1" ||
		n.Tasks["c1-r1"].NodeName != "n1" || len(n.Tasks) != 2 {
		t.Errorf("node %+v, want Ready n1 running r1 and r2 on 2000 of 4000 milli-CPU", n)
	}
}
