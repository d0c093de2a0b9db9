package cache

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// syntheticJobID names the job of a pod that has no PodGroup, as Volcano's
// controller would name the PodGroup it creates for it.
func syntheticJobID(pod *v1.Pod) api.JobID {
	return api.JobID(pod.Namespace + "/podgroup-" + string(pod.UID))
}

// syntheticJob makes up, in the cache only, the PodGroup that Volcano's
// controller would have created for a pod without one: minMember 1, the
// pod's queue annotation or the default queue, the pod's priority class.
// Callers hold mu.
func (c *Cache) syntheticJob(pod *v1.Pod) api.JobID {
	id := syntheticJobID(pod)
	if j, ok := c.jobs[id]; ok && j.PodGroup != nil {
		return id
	}
	queue := pod.Annotations[v1beta1.QueueNameAnnotationKey]
	if queue == "" {
		queue = c.opts.DefaultQueue
	}
	pg := &v1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:         pod.Namespace,
			Name:              "podgroup-" + string(pod.UID),
			CreationTimestamp: pod.CreationTimestamp,
		},
		Spec: v1beta1.PodGroupSpec{
			MinMember:         1,
			Queue:             queue,
			PriorityClassName: pod.Spec.PriorityClassName,
		},
		Status: v1beta1.PodGroupStatus{Phase: v1beta1.PodGroupPending},
	}
	c.job(id).SetPodGroup(pg)
	c.synthetic[id] = true
	return id
}

// IsSynthetic reports whether a job's PodGroup exists only in the cache.
func (c *Cache) IsSynthetic(id api.JobID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.synthetic[id]
}
