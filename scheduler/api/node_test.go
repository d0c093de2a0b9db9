package api

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func testNode() *NodeInfo {
	return NewNodeInfo(&v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "n1"},
		Status: v1.NodeStatus{Allocatable: v1.ResourceList{
			v1.ResourceCPU: resource.MustParse("4"), v1.ResourcePods: resource.MustParse("10"),
		}},
	})
}

// A task shared with its job may change status before the node re-accounts
// it; the node must undo what it counted, not what the task says now.
func TestNodeAccountingSurvivesSharedTaskMutation(t *testing.T) {
	n := testNode()
	task := &TaskInfo{UID: "t1", Status: Running, Resreq: &Resource{MilliCPU: 1000}}
	n.AddTask(task)
	task.Status = Releasing // the job changed it first
	n.UpdateTask(task)
	if n.Releasing.MilliCPU != 1000 || n.Idle.MilliCPU != 3000 || n.Used.MilliCPU != 1000 {
		t.Fatalf("after evict: idle %v used %v releasing %v", n.Idle.MilliCPU, n.Used.MilliCPU, n.Releasing.MilliCPU)
	}
	task.Status = Running // undone
	n.UpdateTask(task)
	if n.Releasing.MilliCPU != 0 || n.Idle.MilliCPU != 3000 {
		t.Fatalf("after unevict: idle %v releasing %v", n.Idle.MilliCPU, n.Releasing.MilliCPU)
	}
	p := &TaskInfo{UID: "t2", Status: Pipelined, Resreq: &Resource{MilliCPU: 2000}}
	n.AddTask(p)
	p.Status = Pending
	n.RemoveTask(p)
	if n.Pipelined.MilliCPU != 0 || n.Idle.MilliCPU != 3000 {
		t.Fatalf("after unpipeline: idle %v pipelined %v", n.Idle.MilliCPU, n.Pipelined.MilliCPU)
	}
}

func TestClusterCloneSharesTasksBetweenJobsAndNodes(t *testing.T) {
	c := NewClusterInfo()
	job := NewJobInfo("ns/j")
	task := NewTaskInfo(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", UID: "p"}, Spec: v1.PodSpec{NodeName: "n"}})
	job.AddTaskInfo(task)
	c.Jobs[job.UID] = job
	node := NewNodeInfo(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}})
	node.AddTask(task)
	c.Nodes["n"], c.NodeList = node, []string{"n"}

	cp := c.Clone()
	onJob, onNode := cp.Jobs[job.UID].Tasks[task.UID], cp.Nodes["n"].Tasks[task.UID]
	if onJob == nil || onJob != onNode {
		t.Fatalf("the copy's task on its job (%p) and on its node (%p) must be one object", onJob, onNode)
	}
	if onJob == task || cp.Nodes["n"] == node || cp.Jobs[job.UID] == job {
		t.Fatal("the copy shares a job, node or task with the original")
	}
}

// A session's array follows its nodes' changes; nodes already feeding one
// open session's array feed no second one, and closing the first frees
// them.
func TestTrackGenerations(t *testing.T) {
	a, b := testNode(), testNode()
	nodes := []*NodeInfo{a, b}
	gens := TrackGenerations(nodes)
	if gens == nil || gens[0] != a.Generation || gens[1] != b.Generation {
		t.Fatalf("tracked %v, nodes at %d and %d", gens, a.Generation, b.Generation)
	}
	b.AddTask(&TaskInfo{UID: "t", Resreq: EmptyResource(), Status: Running})
	if gens[1] != b.Generation || gens[0] != a.Generation {
		t.Errorf("after a change: tracked %v, nodes at %d and %d", gens, a.Generation, b.Generation)
	}
	if second := TrackGenerations([]*NodeInfo{b}); second != nil {
		t.Errorf("a node feeding an open session's array fed a second one: %v", second)
	}
	UntrackGenerations(nodes, gens)
	was := gens[0]
	a.SetNode(a.Node)
	if gens[0] != was {
		t.Error("an untracked node still writes the array")
	}
	if again := TrackGenerations(nodes); again == nil {
		t.Error("nodes freed by UntrackGenerations could not be tracked again")
	}
}
