package testutil

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/conf"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// GroupPod returns a pod of job c1/pg1, pending, or placed on nodeName when it
// is set (the caller sets the phase it wants).
func GroupPod(name, nodeName string, req v1.ResourceList) *v1.Pod {
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

// OneJobSession opens a session on the nodes and one job, c1/pg1 in queue c1,
// holding the pods, with the given configuration. It suits node-level plugins
// (predicates, scoring), whose answers do not depend on jobs and queues.
func OneJobSession(t testing.TB, registry framework.Registry, cfgYAML string, nodes []*v1.Node, pods []*v1.Pod) *framework.Session {
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
	ssn, err := framework.OpenSession(&Cache{Cluster: ci}, registry, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return ssn
}

// TaskNamed returns the session's task whose pod has this name, or nil.
func TaskNamed(ssn *framework.Session, name string) *api.TaskInfo {
	for _, j := range ssn.Jobs {
		for _, t := range j.Tasks {
			if t.Name == name {
				return t
			}
		}
	}
	return nil
}
