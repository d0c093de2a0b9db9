package extender

import (
	"strconv"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// The wire types marshal to the JSON that Volcano v1.15's scheduler api
// types (TaskInfo, NodeInfo, JobInfo, QueueInfo, Resource) marshal to: Go's
// default encoding of their exported fields, so every key is the field's
// name. Every key Volcano sends is present, in Volcano's order, so that an
// extender that indexes a key (in any language) finds it. Fields for
// features Caldera does not have (DRA, NUMA, hypernodes, sub-jobs,
// oversubscription) carry their zero value, which is what Volcano sends
// when those features are off, but for sub-jobs: Volcano v1.15 puts every
// task in a default sub-job, where these are null (docs/extender.md). Objects shared with the snapshot (pods,
// nodes, PodGroups, queues) are referenced, not copied.

// wireResource is Volcano's Resource.
type wireResource struct {
	MilliCPU        float64
	Memory          float64
	ScalarResources map[v1.ResourceName]float64
	MaxTaskNum      int
}

func toResource(r *api.Resource) *wireResource {
	if r == nil {
		return nil
	}
	return &wireResource{MilliCPU: r.MilliCPU, Memory: r.Memory, ScalarResources: r.Scalars, MaxTaskNum: r.MaxTaskNum}
}

// wireTask is Volcano's TaskInfo. NodeName through Status are the fields of
// its embedded TransactionContext, which Go's encoder lifts to this level.
type wireTask struct {
	UID                           api.TaskID
	Job                           api.JobID
	Name                          string
	Namespace                     string
	TaskRole                      string
	Resreq                        *wireResource
	InitResreq                    *wireResource
	DRAResreq                     map[string]any
	ResourceClaimKeys             []string
	ResourceClaimDRAResreq        map[string]any
	NodeName                      string
	EvictionOccurred              bool
	JobAllocatedHyperNode         string
	Status                        api.TaskStatus
	LastTransaction               *struct{}
	Priority                      int32
	VolumeReady                   bool
	Preemptable                   bool
	BestEffort                    bool
	HasRestartableInitContainer   bool
	SchGated                      bool
	RevocableZone                 string
	NumaInfo                      *struct{}
	Pod                           *v1.Pod
	CustomBindErrHandlerSucceeded bool
}

// wireNodeState is Volcano's NodeState; Phase is 1 (Ready) or 2 (NotReady).
type wireNodeState struct {
	Phase  int
	Reason string
}

// wireNode is Volcano's NodeInfo.
type wireNode struct {
	Name                     string
	Node                     *v1.Node
	State                    wireNodeState
	Releasing                *wireResource
	Pipelined                *wireResource
	Idle                     *wireResource
	Used                     *wireResource
	Allocatable              *wireResource
	Capacity                 *wireResource
	ResourceUsage            *struct{}
	Tasks                    map[api.TaskID]*wireTask
	NumaInfo                 *struct{}
	NumaChgFlag              int
	NumaSchedulerInfo        *struct{}
	RevocableZone            string
	Others                   map[string]any
	OversubscriptionNode     bool
	OfflineJobEvicting       bool
	OversubscriptionResource *wireResource
	ImageStates              map[string]any
	Generation               int64
	BindGeneration           int64
}

// wirePodGroup is Volcano's api.PodGroup: the PodGroup object embedded, so
// that its kind, apiVersion, metadata, spec and status keys sit at this
// level, beside Version.
type wirePodGroup struct {
	*v1beta1.PodGroup
	Version string
}

// wireBudget is Volcano's DisruptionBudget.
type wireBudget struct {
	MinAvailable   string
	MaxUnavailable string
}

// wireJob is Volcano's JobInfo. NodesFitErrors holds an empty object per
// task, because Volcano's FitErrors has no exported field.
type wireJob struct {
	UID                    api.JobID
	PgUID                  types.UID
	Name                   string
	Namespace              string
	Queue                  api.QueueID
	Priority               int32
	MinAvailable           int32
	WaitingTime            *time.Duration
	JobFitErrors           string
	NodesFitErrors         map[api.TaskID]struct{}
	AllocatedHyperNode     string
	NetworkTopology        *v1beta1.NetworkTopologySpec
	SubJobs                map[string]any
	TaskToSubJob           map[api.TaskID]string
	MinSubJobs             map[string]int32
	TaskStatusIndex        map[api.TaskStatus]map[api.TaskID]*wireTask
	Tasks                  map[api.TaskID]*wireTask
	TaskMinAvailable       map[string]int32
	TaskMinAvailableTotal  int32
	Allocated              *wireResource
	TotalRequest           *wireResource
	CreationTimestamp      metav1.Time
	PodGroup               *wirePodGroup
	ScheduleStartTimestamp metav1.Time
	Preemptable            bool
	RevocableZone          string
	Budget                 *wireBudget
}

// wireQueue is Volcano's QueueInfo.
type wireQueue struct {
	UID       api.QueueID
	Name      string
	Weight    int32
	Weights   string
	Hierarchy string
	Queue     *v1beta1.Queue
}

// encoder converts the session's objects for one request. Within a request
// a task reached twice (from its job's Tasks and TaskStatusIndex, or from a
// job and a node) is converted once and shared.
type encoder struct {
	tasks map[*api.TaskInfo]*wireTask
}

func newEncoder() *encoder { return &encoder{tasks: map[*api.TaskInfo]*wireTask{}} }

func (e *encoder) task(t *api.TaskInfo) *wireTask {
	if t == nil {
		return nil
	}
	if w, ok := e.tasks[t]; ok {
		return w
	}
	w := &wireTask{
		UID:         t.UID,
		Job:         t.Job,
		Name:        t.Name,
		Namespace:   t.Namespace,
		TaskRole:    t.TaskRole,
		Resreq:      toResource(t.Resreq),
		InitResreq:  toResource(t.InitResreq),
		NodeName:    t.NodeName,
		Status:      t.Status,
		Priority:    t.Priority,
		Preemptable: t.Preemptable,
		BestEffort:  t.BestEffort,
		Pod:         t.Pod,
	}
	if p := t.Pod; p != nil {
		w.SchGated = len(p.Spec.SchedulingGates) > 0
		w.RevocableZone = revocableZone(p.Annotations)
		for i := range p.Spec.InitContainers {
			if rp := p.Spec.InitContainers[i].RestartPolicy; rp != nil && *rp == v1.ContainerRestartPolicyAlways {
				w.HasRestartableInitContainer = true
			}
		}
	}
	e.tasks[t] = w
	return w
}

// revocableZone reads a pod's or PodGroup's annotations as Volcano does: the
// zone annotation counts only as "*", and a preemptable object without it
// may use any revocable node.
func revocableZone(annotations map[string]string) string {
	if v, ok := annotations[v1beta1.RevocableZone]; ok {
		if v == "*" {
			return v
		}
		return ""
	}
	if v, ok := annotations[v1beta1.PodPreemptable]; ok {
		if b, err := strconv.ParseBool(v); err == nil && b {
			return "*"
		}
	}
	return ""
}

func (e *encoder) node(n *api.NodeInfo) *wireNode {
	if n == nil {
		return nil
	}
	w := &wireNode{
		Name:        n.Name,
		Node:        n.Node,
		State:       nodeState(n),
		Releasing:   toResource(n.Releasing),
		Pipelined:   toResource(n.Pipelined),
		Idle:        toResource(n.Idle),
		Used:        toResource(n.Used),
		Allocatable: toResource(n.Allocatable),
		Capacity:    toResource(n.Capability),
		Tasks:       make(map[api.TaskID]*wireTask, len(n.Tasks)),
		Generation:  int64(n.Generation),
	}
	if n.Node != nil {
		w.RevocableZone = n.Node.Labels[v1beta1.RevocableZone]
	}
	for id, t := range n.Tasks {
		w.Tasks[id] = e.task(t)
	}
	return w
}

func nodeState(n *api.NodeInfo) wireNodeState {
	const ready, notReady = 1, 2
	switch {
	case n.Node == nil:
		return wireNodeState{Phase: notReady, Reason: "UnInitialized"}
	case !n.Ready:
		return wireNodeState{Phase: notReady, Reason: "NotReady"}
	}
	return wireNodeState{Phase: ready}
}

func (e *encoder) nodes(ns []*api.NodeInfo) []*wireNode {
	out := make([]*wireNode, len(ns))
	for i, n := range ns {
		out[i] = e.node(n)
	}
	return out
}

func (e *encoder) job(j *api.JobInfo) *wireJob {
	if j == nil {
		return nil
	}
	w := &wireJob{
		UID:                   j.UID,
		Name:                  j.Name,
		Namespace:             j.Namespace,
		Queue:                 j.Queue,
		Priority:              j.Priority,
		MinAvailable:          j.MinAvailable,
		JobFitErrors:          j.JobFitErrors,
		NodesFitErrors:        make(map[api.TaskID]struct{}, len(j.NodesFitErrors)),
		TaskStatusIndex:       make(map[api.TaskStatus]map[api.TaskID]*wireTask, len(j.TaskStatusIndex)),
		Tasks:                 make(map[api.TaskID]*wireTask, len(j.Tasks)),
		TaskMinAvailable:      j.TaskMinAvailable,
		TaskMinAvailableTotal: j.TaskMinAvailableTotal,
		Allocated:             toResource(j.Allocated),
		TotalRequest:          toResource(j.TotalRequest),
		CreationTimestamp:     j.CreationTimestamp,
		Preemptable:           j.Preemptable,
		Budget:                &wireBudget{},
	}
	for id := range j.NodesFitErrors {
		w.NodesFitErrors[id] = struct{}{}
	}
	for id, t := range j.Tasks {
		w.Tasks[id] = e.task(t)
	}
	for status, tasks := range j.TaskStatusIndex {
		m := make(map[api.TaskID]*wireTask, len(tasks))
		for id, t := range tasks {
			m[id] = e.task(t)
		}
		w.TaskStatusIndex[status] = m
	}
	if pg := j.PodGroup; pg != nil {
		w.PgUID = pg.UID
		w.PodGroup = &wirePodGroup{PodGroup: pg, Version: "v1beta1"}
		w.NetworkTopology = pg.Spec.NetworkTopology
		w.WaitingTime = waitingTime(pg)
		w.RevocableZone = revocableZone(pg.Annotations)
		if v, ok := pg.Annotations[v1beta1.JDBMinAvailable]; ok {
			w.Budget.MinAvailable = v
		} else if v, ok := pg.Annotations[v1beta1.JDBMaxUnavailable]; ok {
			w.Budget.MaxUnavailable = v
		}
	}
	return w
}

// waitingTime reads the PodGroup's SLA waiting time as Volcano does: the
// volcano.sh/ annotation first, then the bare one; a bad or non-positive
// value counts as none.
func waitingTime(pg *v1beta1.PodGroup) *time.Duration {
	for _, key := range []string{v1beta1.JobWaitingTime, "sla-waiting-time"} {
		if s, ok := pg.Annotations[key]; ok {
			if d, err := time.ParseDuration(s); err == nil && d > 0 {
				return &d
			}
		}
	}
	return nil
}

func (e *encoder) queue(q *api.QueueInfo) *wireQueue {
	if q == nil {
		return nil
	}
	w := &wireQueue{UID: q.UID, Name: q.Name, Weight: q.Weight, Queue: q.Queue}
	if q.Queue != nil {
		w.Hierarchy = q.Queue.Annotations[v1beta1.KubeHierarchyAnnotationKey]
		w.Weights = q.Queue.Annotations[v1beta1.KubeHierarchyWeightAnnotationKey]
	}
	return w
}
