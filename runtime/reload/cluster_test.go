package reload

import (
	"fmt"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// fixedCluster is a framework.Cache whose every session starts from the
// same state, four empty nodes (node-0 annotated as draining) and six
// pending pods, and which records the binds of each session instead of
// applying them: every session decides everything again, so sessions
// with the same policy must decide the same.
type fixedCluster struct {
	base *api.ClusterInfo

	mu    sync.Mutex
	binds map[string]string
}

func newFixedCluster() *fixedCluster {
	c := api.NewClusterInfo()
	c.Queues["default"] = api.NewQueueInfo(&v1beta1.Queue{
		ObjectMeta: metav1.ObjectMeta{Name: "default"},
		Spec:       v1beta1.QueueSpec{Weight: 1},
		Status:     v1beta1.QueueStatus{State: v1beta1.QueueStateOpen},
	})
	for i := range 4 {
		name := fmt.Sprintf("node-%d", i)
		node := &v1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}},
			Status: v1.NodeStatus{
				Allocatable: v1.ResourceList{v1.ResourceCPU: resource.MustParse("8"), v1.ResourceMemory: resource.MustParse("32Gi"), v1.ResourcePods: resource.MustParse("110")},
				Conditions:  []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}},
			},
		}
		if i == 0 {
			node.Annotations = map[string]string{"caldera.sh/draining": "true"}
		}
		node.Status.Capacity = node.Status.Allocatable
		c.Nodes[name] = api.NewNodeInfo(node)
		c.NodeList = append(c.NodeList, name)
	}
	created := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 6 {
		name := fmt.Sprintf("job-%d", i)
		pg := &v1beta1.PodGroup{
			ObjectMeta: metav1.ObjectMeta{Namespace: "soak", Name: name, CreationTimestamp: metav1.NewTime(created.Add(time.Duration(i) * time.Second))},
			Spec:       v1beta1.PodGroupSpec{MinMember: 1, Queue: "default"},
			Status:     v1beta1.PodGroupStatus{Phase: v1beta1.PodGroupInqueue},
		}
		job := api.NewJobInfo(api.JobID("soak/" + name))
		job.SetPodGroup(pg)
		job.AddTaskInfo(api.NewTaskInfo(&v1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Namespace: "soak", Name: name, UID: types.UID(name),
				Annotations:       map[string]string{api.GroupNameAnnotation: name},
				CreationTimestamp: pg.CreationTimestamp,
			},
			Spec: v1.PodSpec{SchedulerName: "volcano", Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{
				Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("1"), v1.ResourceMemory: resource.MustParse("1Gi")},
			}}}},
			Status: v1.PodStatus{Phase: v1.PodPending},
		}))
		c.Jobs[job.UID] = job
	}
	return &fixedCluster{base: c, binds: map[string]string{}}
}

// Snapshot copies the base state the way the real cache does.
func (c *fixedCluster) Snapshot() *api.ClusterInfo { return c.base.Clone() }

func (c *fixedCluster) Bind(t *api.TaskInfo, node string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.binds[t.Name] = node
	return nil
}

func (c *fixedCluster) Evict(*api.TaskInfo, string) error  { return nil }
func (c *fixedCluster) UpdateJobStatus(*api.JobInfo, bool) {}

// takeBinds returns the binds since the last call, as "pod=node" sorted
// by pod.
func (c *fixedCluster) takeBinds() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := ""
	for i := range 6 {
		name := fmt.Sprintf("job-%d", i)
		s += fmt.Sprintf("%s=%s ", name, c.binds[name])
	}
	c.binds = map[string]string{}
	return s
}
