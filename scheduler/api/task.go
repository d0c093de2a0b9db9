package api

import (
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/caldera-scheduler/caldera/scheduler/dra"
)

// Well-known annotations and labels read from pods and PodGroups.
const (
	// GroupNameAnnotation joins a pod to its PodGroup in the same namespace.
	GroupNameAnnotation = "scheduling.k8s.io/group-name"
	// TaskSpecKey names the role of a pod within its job (Volcano's task name).
	TaskSpecKey = "volcano.sh/task-spec"
	// PreemptableKey marks a pod (annotation first, then label) as preemptable.
	PreemptableKey = "volcano.sh/preemptable"
	// TaskPriorityAnnotation overrides a pod's priority within its job.
	TaskPriorityAnnotation = "volcano.sh/task-priority"
)

// TaskID identifies a task: its pod's UID.
type TaskID types.UID

// TaskStatus is where a task stands in its lifecycle, as Volcano defines it.
type TaskStatus int

const (
	// Pending: waiting to be placed.
	Pending TaskStatus = 1 << iota
	// Allocated: placed on a node in this session, not yet bound.
	Allocated
	// Pipelined: placed on a node whose resources are still being released.
	Pipelined
	// Binding: a bind request is in flight.
	Binding
	// Bound: bound to a node, not yet running.
	Bound
	// Running: running on a node.
	Running
	// Releasing: being deleted; its resources will come free.
	Releasing
	// Succeeded: finished successfully.
	Succeeded
	// Failed: finished unsuccessfully.
	Failed
	// Unknown: the pod's phase says nothing usable.
	Unknown
)

var taskStatusNames = map[TaskStatus]string{
	Pending: "Pending", Allocated: "Allocated", Pipelined: "Pipelined", Binding: "Binding",
	Bound: "Bound", Running: "Running", Releasing: "Releasing", Succeeded: "Succeeded",
	Failed: "Failed", Unknown: "Unknown",
}

func (s TaskStatus) String() string {
	if n, ok := taskStatusNames[s]; ok {
		return n
	}
	return "Unknown"
}

// AllocatedStatus reports whether a task in this status holds node resources
// on behalf of its job.
func AllocatedStatus(s TaskStatus) bool {
	switch s {
	case Bound, Binding, Running, Allocated:
		return true
	}
	return false
}

// TaskInfo is the scheduler's view of one pod.
type TaskInfo struct {
	UID       TaskID
	Job       JobID
	Name      string
	Namespace string
	// TaskRole is the pod's role within its job (annotation or label
	// volcano.sh/task-spec), used by per-role minimums.
	TaskRole string

	// Resreq is what the task holds while it runs; InitResreq is what it needs
	// to start (init containers included). Both count one "pods" slot.
	Resreq     *Resource
	InitResreq *Resource

	NodeName string
	Status   TaskStatus
	Priority int32
	// Preemptable says whether preempt and reclaim may choose this task.
	Preemptable bool
	// BestEffort tasks request nothing but a pod slot.
	BestEffort bool
	// EvictionOccurred says a pipelined task waits on a node for victims
	// evicted for it (preempt, reclaim): the pod is nominated to that node.
	EvictionOccurred bool
	// JobAllocatedHyperNode is, while allocate scores nodes for the task,
	// the lowest hypernode holding what its job has placed so far (jobs
	// with a network topology only).
	JobAllocatedHyperNode string
	// LastTransaction is where and how a statement of this session had
	// placed the task before it was discarded; nil when none was, or the
	// last one was committed. Volcano words a pending pod's condition from
	// it (TaskSchedulingReason).
	LastTransaction *TransactionContext
	// BindAnnotations are written on the pod just before it is bound: what
	// a plugin decided on the node that the pod's node agents read, such
	// as deviceshare's GPU index. Plugins set them in their allocate events
	// and take them back in their deallocate events, through
	// SetBindAnnotations, which never changes a map a clone shares.
	BindAnnotations map[string]string
	// BindVolumes are the volume bindings and provisions the predicates
	// plugin decided for the task's node (at its allocate event; taken
	// back at its deallocate event), written before the pod is bound.
	BindVolumes *VolumeBinding
	// BindClaims are the ResourceClaim allocations and reservations the
	// predicates plugin decided for the task's node, written before the
	// pod is bound (after the volumes); nil for none.
	BindClaims *dra.Allocation

	Pod *v1.Pod
}

// SetBindAnnotations sets (a value) or removes (nil) annotations to write
// at bind, copying the map so that clones of the task keep theirs.
func (t *TaskInfo) SetBindAnnotations(changes map[string]*string) {
	next := make(map[string]string, len(t.BindAnnotations)+len(changes))
	for k, v := range t.BindAnnotations {
		next[k] = v
	}
	for k, v := range changes {
		if v == nil {
			delete(next, k)
		} else {
			next[k] = *v
		}
	}
	if len(next) == 0 {
		next = nil
	}
	t.BindAnnotations = next
}

// TransactionContext is a task's placement within a statement.
type TransactionContext struct {
	NodeName         string
	Status           TaskStatus
	EvictionOccurred bool
}

// transaction returns the task's placement as it stands.
func (t *TaskInfo) transaction() TransactionContext {
	return TransactionContext{NodeName: t.NodeName, Status: t.Status, EvictionOccurred: t.EvictionOccurred}
}

// RememberTransaction records the task's placement before a statement that
// made it is discarded; ForgetTransaction clears it when one is committed.
func (t *TaskInfo) RememberTransaction() {
	tx := t.transaction()
	t.LastTransaction = &tx
}

// ForgetTransaction: see RememberTransaction.
func (t *TaskInfo) ForgetTransaction() { t.LastTransaction = nil }

// NewTaskInfo builds a task from a pod with Volcano's rules for status,
// resources, priority and preemptability. The pod is shared, not copied.
func NewTaskInfo(pod *v1.Pod) *TaskInfo {
	req := PodResourceRequest(pod)
	t := &TaskInfo{
		UID:         TaskID(pod.UID),
		Job:         jobIDOf(pod),
		Name:        pod.Name,
		Namespace:   pod.Namespace,
		TaskRole:    taskRoleOf(pod),
		Resreq:      req,
		InitResreq:  req,
		NodeName:    pod.Spec.NodeName,
		Status:      statusOf(pod),
		Priority:    1,
		Preemptable: preemptableOf(pod),
		BestEffort:  req.IsEmpty(),
		Pod:         pod,
	}
	if pod.Spec.Priority != nil {
		t.Priority = *pod.Spec.Priority
	}
	if s, ok := pod.Annotations[TaskPriorityAnnotation]; ok {
		if p, err := strconv.ParseInt(s, 10, 32); err == nil {
			t.Priority = int32(p)
		}
	}
	return t
}

// Clone copies the task's mutable scheduling state; the pod and the resource
// requests, which a session never mutates, are shared.
func (t *TaskInfo) Clone() *TaskInfo {
	c := *t
	return &c
}

// Key returns "namespace/name".
func (t *TaskInfo) Key() string { return t.Namespace + "/" + t.Name }

func jobIDOf(pod *v1.Pod) JobID {
	if g := pod.Annotations[GroupNameAnnotation]; g != "" {
		return JobID(pod.Namespace + "/" + g)
	}
	return ""
}

func taskRoleOf(pod *v1.Pod) string {
	if r := pod.Annotations[TaskSpecKey]; r != "" {
		return r
	}
	return pod.Labels[TaskSpecKey]
}

// preemptableOf reads a pod's volcano.sh/preemptable. A pod that says
// nothing is preemptable.
func preemptableOf(pod *v1.Pod) bool { return markedPreemptable(pod.Annotations, pod.Labels, true) }

// markedPreemptable reads volcano.sh/preemptable, annotation before label,
// as Volcano does for pods and PodGroups: unset gives the default, a value
// strconv.ParseBool cannot read gives false.
func markedPreemptable(annotations, labels map[string]string, unset bool) bool {
	for _, m := range []map[string]string{annotations, labels} {
		if v, ok := m[PreemptableKey]; ok {
			b, err := strconv.ParseBool(v)
			return err == nil && b
		}
	}
	return unset
}

func statusOf(pod *v1.Pod) TaskStatus {
	switch pod.Status.Phase {
	case v1.PodRunning:
		if pod.DeletionTimestamp != nil {
			return Releasing
		}
		return Running
	case v1.PodPending:
		if pod.DeletionTimestamp != nil {
			return Releasing
		}
		if pod.Spec.NodeName == "" {
			return Pending
		}
		return Bound
	case v1.PodSucceeded:
		return Succeeded
	case v1.PodFailed:
		return Failed
	case "":
		// A pod object that has no status yet (a manifest, a fresh create) is
		// waiting for a node, or runs where it was placed.
		if pod.Spec.NodeName == "" {
			return Pending
		}
		return Bound
	}
	return Unknown
}

// PodResourceRequest sums what a pod needs to start and run: its containers,
// the largest init-container step (restartable sidecars stay for the pod's
// life), its overhead, and one "pods" slot.
func PodResourceRequest(pod *v1.Pod) *Resource {
	result := EmptyResource()
	for i := range pod.Spec.Containers {
		result.Add(NewResource(pod.Spec.Containers[i].Resources.Requests))
	}
	sidecars := EmptyResource()
	initMax := EmptyResource()
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		req := NewResource(c.Resources.Requests)
		if c.RestartPolicy != nil && *c.RestartPolicy == v1.ContainerRestartPolicyAlways {
			result.Add(req)
			sidecars.Add(req)
			initMax.SetMaxResource(sidecars)
			continue
		}
		initMax.SetMaxResource(req.Add(sidecars))
	}
	result.SetMaxResource(initMax)
	if pod.Spec.Overhead != nil {
		result.Add(NewResource(pod.Spec.Overhead))
	}
	result.AddScalar(v1.ResourcePods, 1)
	return result
}

// ScheduledStatus reports whether a task has been placed for good: bound,
// running or finished. Allocated and binding tasks are not yet.
func ScheduledStatus(s TaskStatus) bool {
	switch s {
	case Running, Bound, Failed, Succeeded:
		return true
	}
	return false
}

// CompletedStatus reports whether a task has finished.
func CompletedStatus(s TaskStatus) bool { return s == Succeeded || s == Failed }

// CompareTaskDefault orders tasks when no plugin does, as Volcano does: by the
// numeric index at the end of the pod name within the same role ("job-task-3"),
// then by creation time, then by UID.
func CompareTaskDefault(l, r *TaskInfo) bool {
	li, lok := podIndex(l.Pod)
	ri, rok := podIndex(r.Pod)
	if !lok || !rok || li == ri {
		if !l.Pod.CreationTimestamp.Equal(&r.Pod.CreationTimestamp) {
			return l.Pod.CreationTimestamp.Before(&r.Pod.CreationTimestamp)
		}
		return l.UID < r.UID
	}
	return li < ri
}

// podIndex reads the index Volcano's job controller puts at the end of a pod
// name ("job-task-3"): the last dash-separated part of a name with at least
// three parts.
func podIndex(pod *v1.Pod) (int, bool) {
	parts := strings.Split(pod.Name, "-")
	if len(parts) < 3 {
		return 0, false
	}
	n, err := strconv.Atoi(parts[len(parts)-1])
	return n, err == nil
}
