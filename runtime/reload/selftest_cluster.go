package reload

import (
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// newSelfTestSnapshot is small but exercises the view: two node shapes
// (labels, a soft taint, GPUs), a Pending gang of two and a GPU pod with a
// PodGroup of its own, as the cache makes one for a pod that has none.
func newSelfTestSnapshot() *api.ClusterInfo {
	c := api.NewClusterInfo()
	created := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	c.Queues["default"] = api.NewQueueInfo(&v1beta1.Queue{
		ObjectMeta: metav1.ObjectMeta{Name: "default", CreationTimestamp: metav1.NewTime(created)},
		Spec:       v1beta1.QueueSpec{Weight: 1},
		Status:     v1beta1.QueueStatus{State: v1beta1.QueueStateOpen},
	})
	addNode := func(name, zone string, alloc v1.ResourceList, taints ...v1.Taint) {
		alloc[v1.ResourcePods] = resource.MustParse("110")
		node := &v1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"zone": zone, "kubernetes.io/hostname": name}},
			Spec:       v1.NodeSpec{Taints: taints},
			Status:     v1.NodeStatus{Allocatable: alloc, Capacity: alloc},
		}
		c.Nodes[name] = api.NewNodeInfo(node)
		c.NodeList = append(c.NodeList, name)
	}
	addNode("small", "a", v1.ResourceList{v1.ResourceCPU: resource.MustParse("4"), v1.ResourceMemory: resource.MustParse("8Gi")})
	addNode("large", "b", v1.ResourceList{
		v1.ResourceCPU: resource.MustParse("16"), v1.ResourceMemory: resource.MustParse("64Gi"), "nvidia.com/gpu": resource.MustParse("2"),
	}, v1.Taint{Key: "dedicated", Value: "batch", Effect: v1.TaintEffectPreferNoSchedule})

	addJob := func(name string, minMember int32, pods map[string]v1.ResourceList) {
		pg := &v1beta1.PodGroup{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, CreationTimestamp: metav1.NewTime(created)},
			Spec:       v1beta1.PodGroupSpec{MinMember: minMember, Queue: "default"},
			Status:     v1beta1.PodGroupStatus{Phase: v1beta1.PodGroupPending},
		}
		job := api.NewJobInfo(api.JobID("default/" + name))
		job.SetPodGroup(pg)
		for pod, requests := range pods {
			job.AddTaskInfo(api.NewTaskInfo(&v1.Pod{
				ObjectMeta: metav1.ObjectMeta{
					Namespace: "default", Name: pod, UID: types.UID("self-test-" + pod), CreationTimestamp: metav1.NewTime(created),
					Annotations: map[string]string{api.GroupNameAnnotation: name},
				},
				Spec: v1.PodSpec{SchedulerName: "volcano", Containers: []v1.Container{{
					Name: "c", Image: "x", Resources: v1.ResourceRequirements{Requests: requests},
				}}},
				Status: v1.PodStatus{Phase: v1.PodPending},
			}))
		}
		c.Jobs[job.UID] = job
	}
	small := v1.ResourceList{v1.ResourceCPU: resource.MustParse("1"), v1.ResourceMemory: resource.MustParse("1Gi")}
	addJob("gang", 2, map[string]v1.ResourceList{"gang-0": small, "gang-1": small.DeepCopy()})
	addJob("podgroup-plain", 1, map[string]v1.ResourceList{"plain": {v1.ResourceCPU: resource.MustParse("2"), "nvidia.com/gpu": resource.MustParse("1")}})
	return c
}
