package framework

import (
	"errors"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/conf"
)

// snapshotCache serves one fixed snapshot and accepts every decision.
type snapshotCache struct{ ci *api.ClusterInfo }

func (c snapshotCache) Snapshot() *api.ClusterInfo       { return c.ci }
func (snapshotCache) Bind(*api.TaskInfo, string) error   { return nil }
func (snapshotCache) Evict(*api.TaskInfo, string) error  { return nil }
func (snapshotCache) UpdateJobStatus(*api.JobInfo, bool) {}
func (snapshotCache) UpdateQueueStatus(*v1beta1.Queue)   {}

// listener records the events it hears in a log shared by the session's
// handlers, so that a test sees their order.
type listener struct {
	name string
	log  *[]string
}

func (l *listener) Name() string                 { return l.name }
func (l *listener) OnSessionOpen(*Session)       {}
func (l *listener) OnSessionClose(*Session)      {}
func (l *listener) OnAllocate(t *api.TaskInfo)   { l.note("allocate", t) }
func (l *listener) OnDeallocate(t *api.TaskInfo) { l.note("deallocate", t) }
func (l *listener) note(what string, t *api.TaskInfo) {
	*l.log = append(*l.log, l.name+" "+what+" "+t.Name)
}

// refuser is a listener that refuses every placement with its error (none
// when nil).
type refuser struct {
	listener
	refusal error
}

func (r *refuser) TryAllocate(t *api.TaskInfo) error {
	r.note("try", t)
	return r.refusal
}

// openWithHandlers opens a session on one 4-cpu node and one pending 1-cpu
// task, with the refuser and a plain listener as event handlers, in that
// order.
func openWithHandlers(t *testing.T, refusal error) (*Session, *[]string) {
	t.Helper()
	ci := api.NewClusterInfo()
	rl := v1.ResourceList{v1.ResourceCPU: resource.MustParse("4"), v1.ResourceMemory: resource.MustParse("8Gi"), v1.ResourcePods: resource.MustParse("110")}
	ci.Nodes["n1"] = api.NewNodeInfo(&v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "n1"},
		Status:     v1.NodeStatus{Capacity: rl, Allocatable: rl},
	})
	ci.NodeList = []string{"n1"}
	job := api.NewJobInfo("c1/pg1")
	job.SetPodGroup(&v1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: "c1", Name: "pg1"},
		Spec:       v1beta1.PodGroupSpec{MinMember: 1},
	})
	job.AddTaskInfo(api.NewTaskInfo(&v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "c1", Name: "p1", UID: "c1-p1",
			Annotations: map[string]string{api.GroupNameAnnotation: "pg1"}},
		Spec: v1.PodSpec{Containers: []v1.Container{{Resources: v1.ResourceRequirements{
			Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")}}}}},
		Status: v1.PodStatus{Phase: v1.PodPending},
	}))
	ci.Jobs[job.UID] = job

	var log []string
	r := &refuser{listener: listener{name: "r", log: &log}, refusal: refusal}
	l := &listener{name: "l", log: &log}
	registry := Registry{
		"r": func(Arguments) (Plugin, error) { return r, nil },
		"l": func(Arguments) (Plugin, error) { return l, nil },
	}
	cfg := &conf.Config{Tiers: []conf.Tier{{Plugins: []conf.PluginOption{{Name: "r"}, {Name: "l"}}}}}
	ssn, err := OpenSession(snapshotCache{ci}, registry, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return ssn, &log
}

func TestEventHandlerRefusesAPlacement(t *testing.T) {
	place := map[string]func(*Statement, *api.TaskInfo) error{
		"allocate": func(s *Statement, task *api.TaskInfo) error { return s.Allocate(task, s.ssn.Nodes["n1"]) },
		"pipeline": func(s *Statement, task *api.TaskInfo) error { return s.Pipeline(task, "n1", false) },
	}
	for name, do := range place {
		t.Run(name+"/accepted", func(t *testing.T) {
			ssn, log := openWithHandlers(t, nil)
			task := ssn.Jobs["c1/pg1"].Tasks["c1-p1"]
			stmt := NewStatement(ssn)
			if err := do(stmt, task); err != nil {
				t.Fatal(err)
			}
			if task.NodeName != "n1" || ssn.Nodes["n1"].Tasks[task.UID] == nil || stmt.Operations() != 1 {
				t.Fatalf("task on %q, node holds it: %v, %d operations: want it placed on n1",
					task.NodeName, ssn.Nodes["n1"].Tasks[task.UID] != nil, stmt.Operations())
			}
			if got := strings.Join(*log, ", "); got != "r try p1, l allocate p1" {
				t.Errorf("events %q", got)
			}
		})
		t.Run(name+"/refused", func(t *testing.T) {
			ssn, log := openWithHandlers(t, errors.New("no licence left"))
			task := ssn.Jobs["c1/pg1"].Tasks["c1-p1"]
			idle := ssn.Nodes["n1"].Idle.Clone()
			stmt := NewStatement(ssn)
			err := do(stmt, task)
			if err == nil || !strings.Contains(err.Error(), "plugin r: no licence left") || !strings.Contains(err.Error(), "c1/p1") {
				t.Fatalf("error %v, want the refusal naming the plugin and the task", err)
			}
			if task.NodeName != "" || task.Status != api.Pending || ssn.Nodes["n1"].Tasks[task.UID] != nil {
				t.Errorf("task on %q with status %v: want it pending and off the node", task.NodeName, task.Status)
			}
			if !ssn.Nodes["n1"].Idle.Equal(idle) || ssn.Nodes["n1"].Pipelined.MilliCPU != 0 {
				t.Errorf("node idle %v pipelined %v, want %v and nothing pipelined", ssn.Nodes["n1"].Idle, ssn.Nodes["n1"].Pipelined, idle)
			}
			if stmt.Operations() != 0 {
				t.Errorf("the statement holds %d operations, want none", stmt.Operations())
			}
			// Every handler was told of the placement and of its undoing.
			if got := strings.Join(*log, ", "); got != "r try p1, l allocate p1, r deallocate p1, l deallocate p1" {
				t.Errorf("events %q", got)
			}
		})
	}
	// Backfill's session-level Allocate, like Volcano's, reads no refusal.
	t.Run("session allocate cannot be refused", func(t *testing.T) {
		ssn, log := openWithHandlers(t, errors.New("no licence left"))
		task := ssn.Jobs["c1/pg1"].Tasks["c1-p1"]
		if err := ssn.Allocate(task, ssn.Nodes["n1"]); err != nil {
			t.Fatal(err)
		}
		if task.NodeName != "n1" {
			t.Errorf("task on %q, want n1", task.NodeName)
		}
		if got := strings.Join(*log, ", "); got != "r allocate p1, l allocate p1" {
			t.Errorf("events %q", got)
		}
	})
}
