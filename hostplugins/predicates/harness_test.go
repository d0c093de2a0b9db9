package predicates

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/conf"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// fakeCache hands out a fixed snapshot and records nothing else.
type fakeCache struct{ snap *api.ClusterInfo }

func (c *fakeCache) Snapshot() *api.ClusterInfo         { return c.snap }
func (c *fakeCache) Bind(*api.TaskInfo, string) error   { return nil }
func (c *fakeCache) Evict(*api.TaskInfo, string) error  { return nil }
func (c *fakeCache) UpdateJobStatus(*api.JobInfo, bool) {}

func rl(pairs ...string) v1.ResourceList {
	out := v1.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		out[v1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return out
}

func node(name string, alloc v1.ResourceList) *v1.Node {
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Status:     v1.NodeStatus{Allocatable: alloc, Capacity: alloc},
	}
}

func pod(name, nodeName string, req v1.ResourceList) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "c1", UID: types.UID("c1-" + name),
			Annotations: map[string]string{api.GroupNameAnnotation: "pg1"},
		},
		Spec: v1.PodSpec{
			NodeName:   nodeName,
			Containers: []v1.Container{{Name: "main", Resources: v1.ResourceRequirements{Requests: req}}},
		},
		Status: v1.PodStatus{Phase: v1.PodPending},
	}
}

// openSession builds a one-job cluster and opens a session on it with the
// given configuration.
func openSession(t testing.TB, cfgYAML string, nodes []*v1.Node, pods []*v1.Pod) *framework.Session {
	t.Helper()
	ci := api.NewClusterInfo()
	for _, n := range nodes {
		ci.Nodes[n.Name] = api.NewNodeInfo(n)
		ci.NodeList = append(ci.NodeList, n.Name)
	}
	job := api.NewJobInfo("c1/pg1")
	job.Name, job.Namespace, job.Queue = "pg1", "c1", "c1"
	for _, p := range pods {
		task := api.NewTaskInfo(p)
		job.AddTaskInfo(task)
		if task.NodeName != "" {
			ci.Nodes[task.NodeName].AddTask(task)
		}
	}
	ci.Jobs[job.UID] = job
	ci.Queues["c1"] = &api.QueueInfo{UID: "c1", Name: "c1", Weight: 1}
	cfg, err := conf.Parse([]byte(cfgYAML), "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	reg := framework.NewRegistry()
	if err := reg.Register(Name, New); err != nil {
		t.Fatal(err)
	}
	ssn, err := framework.OpenSession(&fakeCache{snap: ci}, reg, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return ssn
}

func taskByName(ssn *framework.Session, name string) *api.TaskInfo {
	for _, j := range ssn.Jobs {
		for _, t := range j.Tasks {
			if t.Name == name {
				return t
			}
		}
	}
	return nil
}

func withLabels(n *v1.Node, kv ...string) *v1.Node {
	n.Labels = map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		n.Labels[kv[i]] = kv[i+1]
	}
	return n
}

func withTaints(n *v1.Node, taints ...v1.Taint) *v1.Node {
	n.Spec.Taints = taints
	return n
}

func cordoned(n *v1.Node) *v1.Node {
	n.Spec.Unschedulable = true
	return n
}

func running(p *v1.Pod) *v1.Pod {
	p.Status.Phase = v1.PodRunning
	return p
}

func releasing(p *v1.Pod) *v1.Pod {
	now := metav1.Now()
	p.DeletionTimestamp = &now
	p.Status.Phase = v1.PodRunning
	return p
}
