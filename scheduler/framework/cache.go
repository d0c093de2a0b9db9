package framework

import (
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// Cache is what a session needs from the scheduler cache: a snapshot to open
// on and the means to apply its decisions. Implementations queue binds and
// evictions and retry failures from fresh state; the session never waits on
// the API server.
type Cache interface {
	// Snapshot returns the session's own copy of the cluster state.
	Snapshot() *api.ClusterInfo
	// Bind queues the binding of a task to a node.
	Bind(task *api.TaskInfo, node string) error
	// Evict queues the eviction of a running task with a reason.
	Evict(task *api.TaskInfo, reason string) error
	// UpdateJobStatus writes a job's PodGroup status (phase, conditions,
	// counts) when it changed, and explains its pending pods.
	UpdateJobStatus(job *api.JobInfo, podGroupChanged bool)
}

// QueueStatusWriter is implemented by caches that persist queue status. At
// close, the session hands over every queue whose allocated resources
// changed, as a copy the cache may keep.
type QueueStatusWriter interface {
	UpdateQueueStatus(queue *v1beta1.Queue)
}

// PodGroupEventRecorder is implemented by caches that publish Events. A
// plugin explains through it, as Volcano's do, a decision the PodGroup's
// status does not show, such as a refusal to enqueue.
type PodGroupEventRecorder interface {
	RecordPodGroupEvent(pg *v1beta1.PodGroup, eventType, reason, message string)
}

// RecordPodGroupEvent publishes an Event about a job's PodGroup, if the
// cache publishes Events and the job has a PodGroup of its own in the API.
func (ssn *Session) RecordPodGroupEvent(job *api.JobInfo, eventType, reason, message string) {
	if r, ok := ssn.cache.(PodGroupEventRecorder); ok && job.PodGroup != nil {
		r.RecordPodGroupEvent(job.PodGroup, eventType, reason, message)
	}
}
