package resutil

import (
	v1 "k8s.io/api/core/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
	"github.com/caldera-scheduler/caldera/scheduler/metrics"
)

// QueueUsage is what a queue's jobs hold, ask for and have a claim on, as
// Volcano's queue plugins (proportion, capacity) count them.
type QueueUsage struct {
	// Allocated is what the queue's tasks hold (allocated, binding, bound,
	// running).
	Allocated *api.Resource
	// Request is Allocated plus what its pending tasks ask for.
	Request *api.Resource
	// Elastic is what the queue's jobs hold beyond their minResources.
	Elastic *api.Resource
	// Inqueue is what admitted jobs still have a claim on.
	Inqueue *api.Resource
}

// NewQueueUsage returns an empty usage.
func NewQueueUsage() QueueUsage {
	return QueueUsage{Allocated: api.EmptyResource(), Request: api.EmptyResource(),
		Elastic: api.EmptyResource(), Inqueue: api.EmptyResource()}
}

// AddJob adds a job's holdings, requests and claims.
func (u QueueUsage) AddJob(job *api.JobInfo) {
	for status, tasks := range job.TaskStatusIndex {
		switch {
		case api.AllocatedStatus(status):
			for _, t := range tasks {
				u.Allocated.Add(t.Resreq)
				u.Request.Add(t.Resreq)
			}
		case status == api.Pending:
			for _, t := range tasks {
				u.Request.Add(t.Resreq)
			}
		}
	}
	if HasMinResources(job) && claimsInqueue(job) {
		// Only what the allocated tasks do not already cover: tasks that
		// are allocated or binding are counted in Allocated while the
		// PodGroup is still Inqueue.
		u.Inqueue.Add(WithoutGated(job, UnmetMinResources(job, job.Allocated)))
	}
	u.Elastic.Add(job.GetElasticResources())
}

// claimsInqueue reports whether an admitted job still reserves room in its
// queue: Inqueue PodGroups, and Running ones that hold at least minMember
// tasks (a finished driver must not make a running PodGroup reserve its
// minimum again).
func claimsInqueue(job *api.JobInfo) bool {
	switch job.PodGroup.Status.Phase {
	case v1beta1.PodGroupInqueue:
		return true
	case v1beta1.PodGroupRunning:
		return AllocatedTaskNum(job) >= job.PodGroup.Spec.MinMember
	}
	return false
}

// PublishQueue sets a queue's allocated, deserved and share gauges.
func PublishQueue(name string, allocated, deserved *api.Resource, share float64) {
	metrics.QueueAllocatedMilliCPU.WithLabelValues(name).Set(allocated.MilliCPU)
	metrics.QueueAllocatedMemory.WithLabelValues(name).Set(allocated.Memory)
	metrics.QueueDeservedMilliCPU.WithLabelValues(name).Set(deserved.MilliCPU)
	metrics.QueueDeservedMemory.WithLabelValues(name).Set(deserved.Memory)
	metrics.QueueShare.WithLabelValues(name).Set(share)
}

// AdmitsJob reports whether the job's minResources fit within capability
// next to what the queue holds and has admitted, not counting what it
// holds beyond its jobs' minimums. When they do not, the job's PodGroup
// gets Volcano's "queue resource quota insufficient" Event naming the
// resources short.
func (u QueueUsage) AdmitsJob(ssn *framework.Session, job *api.JobInfo, capability *api.Resource) bool {
	minReq := job.GetMinResources()
	need := minReq.Clone().Add(u.Allocated).Add(u.Inqueue).Sub(u.Elastic)
	ok, short := FitsRequested(need, capability, minReq)
	if !ok {
		ssn.RecordPodGroupEvent(job, v1.EventTypeNormal, string(v1beta1.PodGroupUnschedulableType),
			FormatResourceNames("queue resource quota insufficient", "insufficient", short))
	}
	return ok
}
