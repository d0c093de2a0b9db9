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

// NumaSetsWriter is implemented by caches that keep nodes' NUMA
// information. At close, the numa-aware plugin hands over, by node name,
// the CPU sets the session assigned to the tasks it placed; the cache
// keeps them out of the nodes' allocatable sets until each node's agent
// reports again (Volcano's UpdateSchedulerNumaInfo).
type NumaSetsWriter interface {
	UpdateNumaSets(assigned map[string]api.NumaSets)
}

// UpdateNumaSets hands the session's CPU assignments to the cache, if it
// keeps NUMA information.
func (ssn *Session) UpdateNumaSets(assigned map[string]api.NumaSets) {
	if w, ok := ssn.cache.(NumaSetsWriter); ok && len(assigned) > 0 {
		w.UpdateNumaSets(assigned)
	}
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
