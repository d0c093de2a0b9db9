package api

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"
)

// JobID identifies a job: "namespace/podgroup-name".
type JobID string

// TasksMap indexes tasks by ID.
type TasksMap map[TaskID]*TaskInfo

// JobInfo is a PodGroup and its pods. A pod without a PodGroup forms a job of
// its own (see NewSinglePodJob).
type JobInfo struct {
	UID       JobID
	Name      string
	Namespace string
	Queue     QueueID
	Priority  int32

	MinAvailable int32
	// TaskMinAvailable is the per-role minimum (PodGroup spec.minTaskMember);
	// TaskMinAvailableTotal is its sum.
	TaskMinAvailable      map[string]int32
	TaskMinAvailableTotal int32

	Tasks           TasksMap
	TaskStatusIndex map[TaskStatus]TasksMap

	// Allocated sums the requests of tasks in an allocated status;
	// TotalRequest sums all tasks.
	Allocated    *Resource
	TotalRequest *Resource

	CreationTimestamp metav1.Time
	PodGroup          *v1beta1.PodGroup
	Preemptable       bool

	// NetworkTopology is the session's copy of the PodGroup's
	// spec.networkTopology (a highestTierName turned into its tier, soft
	// mode into hard up to the cluster top, as Volcano v1.15 does at
	// session open). AllocatedHyperNode is the lowest hypernode holding
	// every task the job placed; the cache keeps it between sessions.
	NetworkTopology    *v1beta1.NetworkTopologySpec
	AllocatedHyperNode string

	// SubJobs, TaskToSubJob and MinSubJobs (minSubGroups per policy) are
	// set only when the PodGroup has spec.subGroupPolicy (subjob.go).
	SubJobs      map[SubJobID]*SubJobInfo
	TaskToSubJob map[TaskID]SubJobID
	MinSubJobs   map[SubJobGID]int32

	// JobFitErrors and NodesFitErrors explain, after a session, why tasks
	// stayed pending.
	JobFitErrors   string
	NodesFitErrors map[TaskID]*FitErrors
}

// NewJobInfo returns an empty job with the given ID.
func NewJobInfo(uid JobID) *JobInfo {
	return &JobInfo{
		UID:              uid,
		Tasks:            TasksMap{},
		TaskStatusIndex:  map[TaskStatus]TasksMap{},
		TaskMinAvailable: map[string]int32{},
		Allocated:        EmptyResource(),
		TotalRequest:     EmptyResource(),
		NodesFitErrors:   map[TaskID]*FitErrors{},
	}
}

// SetPodGroup takes the job's identity, queue and minimums from its PodGroup.
func (j *JobInfo) SetPodGroup(pg *v1beta1.PodGroup) {
	// As Volcano: sub-jobs keep their allocated hypernodes only while the
	// policies stay as they were.
	samePolicies := j.PodGroup != nil && equality.Semantic.DeepEqual(j.PodGroup.Spec.SubGroupPolicy, pg.Spec.SubGroupPolicy)
	j.Name = pg.Name
	j.Namespace = pg.Namespace
	j.MinAvailable = pg.Spec.MinMember
	j.Queue = QueueID(pg.Spec.Queue)
	j.CreationTimestamp = pg.CreationTimestamp
	j.Preemptable = markedPreemptable(pg.Annotations, pg.Labels, false)
	j.NetworkTopology = pg.Spec.NetworkTopology.DeepCopy()
	j.TaskMinAvailable = map[string]int32{}
	j.TaskMinAvailableTotal = 0
	for role, n := range pg.Spec.MinTaskMember {
		j.TaskMinAvailable[role] = n
		j.TaskMinAvailableTotal += n
	}
	j.PodGroup = pg
	j.resetSubJobs(samePolicies)
}

// UnsetPodGroup forgets a deleted PodGroup; its pods stay, ungrouped.
func (j *JobInfo) UnsetPodGroup() {
	j.PodGroup = nil
	j.resetSubJobs(false)
}

// EvictableByGang says whether gangpreempt and gangreclaim may take the
// job's tasks: as its PodGroup's volcano.sh/preemptable says, and yes when
// it says nothing (where Preemptable is false).
func (j *JobInfo) EvictableByGang() bool {
	return j.PodGroup == nil || markedPreemptable(j.PodGroup.Annotations, j.PodGroup.Labels, true)
}

// Key returns "namespace/name".
func (j *JobInfo) Key() string { return j.Namespace + "/" + j.Name }

// AddTaskInfo adds a task and accounts for its resources.
func (j *JobInfo) AddTaskInfo(t *TaskInfo) {
	j.addTask(t)
	if j.SubJobs != nil {
		j.addTaskToSubJob(t)
	}
}

func (j *JobInfo) addTask(t *TaskInfo) {
	j.Tasks[t.UID] = t
	indexTask(j.TaskStatusIndex, t)
	j.TotalRequest.Add(t.Resreq)
	if AllocatedStatus(t.Status) {
		j.Allocated.Add(t.Resreq)
	}
}

// DeleteTaskInfo removes a task and its resources.
func (j *JobInfo) DeleteTaskInfo(t *TaskInfo) {
	if cur := j.deleteTask(t); cur != nil && j.SubJobs != nil {
		j.deleteTaskFromSubJob(cur)
	}
}

// deleteTask removes the job's record of the task and returns it, nil
// when the job has none.
func (j *JobInfo) deleteTask(t *TaskInfo) *TaskInfo {
	cur, ok := j.Tasks[t.UID]
	if !ok {
		return nil
	}
	j.TotalRequest.Sub(cur.Resreq)
	if AllocatedStatus(cur.Status) {
		j.Allocated.Sub(cur.Resreq)
	}
	delete(j.Tasks, cur.UID)
	unindexTask(j.TaskStatusIndex, cur)
	return cur
}

// UpdateTaskStatus moves a task to a new status, keeping indexes and resource
// sums right. A task keeps its sub-job: its labels, which chose it, do not
// change with its status.
func (j *JobInfo) UpdateTaskStatus(t *TaskInfo, status TaskStatus) {
	sj := j.SubJobOf(t.UID)
	if cur := j.deleteTask(t); cur != nil && sj != nil {
		sj.deleteTask(cur)
	}
	t.Status = status
	j.addTask(t)
	switch {
	case sj != nil:
		sj.addTask(t)
		j.TaskToSubJob[t.UID] = sj.UID
	case j.SubJobs != nil:
		j.addTaskToSubJob(t)
	}
}

// indexTask and unindexTask keep a job's or a sub-job's tasks by status.
func indexTask(byStatus map[TaskStatus]TasksMap, t *TaskInfo) {
	idx := byStatus[t.Status]
	if idx == nil {
		idx = TasksMap{}
		byStatus[t.Status] = idx
	}
	idx[t.UID] = t
}

func unindexTask(byStatus map[TaskStatus]TasksMap, t *TaskInfo) {
	if idx := byStatus[t.Status]; idx != nil {
		delete(idx, t.UID)
		if len(idx) == 0 {
			delete(byStatus, t.Status)
		}
	}
}

// Clone copies the job and its tasks so that a session may change them.
func (j *JobInfo) Clone() *JobInfo {
	c := NewJobInfo(j.UID)
	c.Name, c.Namespace, c.Queue, c.Priority = j.Name, j.Namespace, j.Queue, j.Priority
	c.MinAvailable, c.TaskMinAvailableTotal = j.MinAvailable, j.TaskMinAvailableTotal
	for k, v := range j.TaskMinAvailable {
		c.TaskMinAvailable[k] = v
	}
	c.CreationTimestamp, c.Preemptable = j.CreationTimestamp, j.Preemptable
	c.NetworkTopology, c.AllocatedHyperNode = j.NetworkTopology.DeepCopy(), j.AllocatedHyperNode
	// The session may change the PodGroup's status (phase, conditions), so it
	// gets its own copy; the cache's stays as the API server last said.
	if j.PodGroup != nil {
		c.PodGroup = j.PodGroup.DeepCopy()
	}
	for _, t := range j.Tasks {
		c.AddTaskInfo(t.Clone())
	}
	if j.SubJobs != nil {
		c.cloneSubJobs(j)
	}
	return c
}

// ReadyTaskNum counts tasks that hold or held resources: bound, binding,
// running, allocated, succeeded.
func (j *JobInfo) ReadyTaskNum() int32 { return readyIn(j.TaskStatusIndex) }

// WaitingTaskNum counts pipelined tasks.
func (j *JobInfo) WaitingTaskNum() int32 { return int32(len(j.TaskStatusIndex[Pipelined])) }

// PendingBestEffortTaskNum counts pending tasks that request nothing.
func (j *JobInfo) PendingBestEffortTaskNum() int32 { return pendingBestEffortIn(j.TaskStatusIndex) }

// The counts a job and a sub-job take of their tasks by status.

func readyIn(idx map[TaskStatus]TasksMap) int32 {
	return int32(len(idx[Bound]) + len(idx[Binding]) + len(idx[Running]) + len(idx[Allocated]) + len(idx[Succeeded]))
}

func pendingBestEffortIn(idx map[TaskStatus]TasksMap) int32 {
	n := int32(0)
	for _, t := range idx[Pending] {
		if t.BestEffort {
			n++
		}
	}
	return n
}

func allocatedIn(idx map[TaskStatus]TasksMap) int {
	n := 0
	for status, tasks := range idx {
		if AllocatedStatus(status) {
			n += len(tasks)
		}
	}
	return n
}

// ValidTaskNum counts tasks that still take part in scheduling.
func (j *JobInfo) ValidTaskNum() int32 {
	n := 0
	for s, ts := range j.TaskStatusIndex {
		if AllocatedStatus(s) || s == Succeeded || s == Pipelined || s == Pending {
			n += len(ts)
		}
	}
	return int32(n)
}

// IsReady: enough tasks hold resources to satisfy minAvailable.
func (j *JobInfo) IsReady() bool {
	return j.ReadyTaskNum()+j.PendingBestEffortTaskNum() >= j.MinAvailable
}

// IsPipelined: enough tasks hold or wait for resources to satisfy minAvailable.
func (j *JobInfo) IsPipelined() bool {
	return j.WaitingTaskNum()+j.ReadyTaskNum()+j.PendingBestEffortTaskNum() >= j.MinAvailable
}

// IsStarving: fewer tasks hold or wait for resources than minAvailable.
func (j *JobInfo) IsStarving() bool {
	return j.WaitingTaskNum()+j.ReadyTaskNum() < j.MinAvailable
}

// IsPending reports whether the PodGroup has not been admitted (enqueued) yet.
func (j *JobInfo) IsPending() bool {
	return j.PodGroup == nil || j.PodGroup.Status.Phase == v1beta1.PodGroupPending || j.PodGroup.Status.Phase == ""
}

// ScheduledTaskNum counts tasks placed for good (bound, running, finished).
func (j *JobInfo) ScheduledTaskNum() int32 {
	n := 0
	for s, ts := range j.TaskStatusIndex {
		if ScheduledStatus(s) {
			n += len(ts)
		}
	}
	return int32(n)
}

// ReleasingScheduledTaskNum counts releasing tasks that still sit on a node.
func (j *JobInfo) ReleasingScheduledTaskNum() int32 {
	n := int32(0)
	for _, t := range j.TaskStatusIndex[Releasing] {
		if t.NodeName != "" {
			n++
		}
	}
	return n
}

// HasPendingTasks reports whether any task waits for a node.
func (j *JobInfo) HasPendingTasks() bool { return len(j.TaskStatusIndex[Pending]) != 0 }

// GetMinResources returns the PodGroup's spec.minResources, or zero.
func (j *JobInfo) GetMinResources() *Resource {
	if j.PodGroup == nil || j.PodGroup.Spec.MinResources == nil {
		return EmptyResource()
	}
	return NewResource(*j.PodGroup.Spec.MinResources)
}

// GetElasticResources returns what the job holds beyond its minResources.
func (j *JobInfo) GetElasticResources() *Resource {
	return ExceededPart(j.Allocated, j.GetMinResources())
}

// rolesCount counts tasks per role among the statuses accepted by keep.
func (j *JobInfo) rolesCount(keep func(TaskStatus, *TaskInfo) bool) map[string]int32 {
	out := map[string]int32{}
	for s, ts := range j.TaskStatusIndex {
		for _, t := range ts {
			if keep(s, t) {
				out[t.TaskRole]++
			}
		}
	}
	return out
}

// rolesMeet reports whether every role has at least its minimum in counts.
func (j *JobInfo) rolesMeet(counts map[string]int32) bool {
	for role, min := range j.TaskMinAvailable {
		if counts[role] < min {
			return false
		}
	}
	return true
}

// perRoleApplies reports whether per-role minimums bind: when the job-wide
// minimum is below their sum, Volcano lets minAvailable alone decide.
func (j *JobInfo) perRoleApplies() bool { return j.MinAvailable >= j.TaskMinAvailableTotal }

// CheckTaskValid: every role can still reach its minimum.
func (j *JobInfo) CheckTaskValid() bool {
	if !j.perRoleApplies() {
		return true
	}
	counts := j.rolesCount(func(s TaskStatus, _ *TaskInfo) bool {
		return AllocatedStatus(s) || s == Succeeded || s == Pipelined || s == Pending
	})
	for role, min := range j.TaskMinAvailable {
		if min != 0 && counts[role] < min {
			return false
		}
	}
	return true
}

// CheckTaskReady: every role has its minimum holding resources, a pending
// best-effort task counting for its role as Volcano counts it
// (getJobAllocatedRoles): it needs nothing to run.
func (j *JobInfo) CheckTaskReady() bool {
	if !j.perRoleApplies() {
		return true
	}
	return j.rolesMeet(j.rolesCount(func(s TaskStatus, t *TaskInfo) bool {
		return AllocatedStatus(s) || s == Succeeded || (s == Pending && t.InitResreq.IsEmpty())
	}))
}

// CheckTaskPipelined: every role has its minimum holding or waiting for
// resources (pending best-effort tasks count).
func (j *JobInfo) CheckTaskPipelined() bool {
	if !j.perRoleApplies() {
		return true
	}
	return j.rolesMeet(j.rolesCount(func(s TaskStatus, t *TaskInfo) bool {
		return AllocatedStatus(s) || s == Succeeded || s == Pipelined || (s == Pending && t.InitResreq.IsEmpty())
	}))
}

// CheckTaskStarving: some role lacks its minimum of tasks holding or waiting
// for resources.
func (j *JobInfo) CheckTaskStarving() bool {
	if !j.perRoleApplies() {
		return true
	}
	return !j.rolesMeet(j.rolesCount(func(s TaskStatus, _ *TaskInfo) bool {
		return AllocatedStatus(s) || s == Succeeded || s == Pipelined
	}))
}

// FitError summarises why the job is not (fully) placed in Volcano's words:
// "pod group is not ready, 1 Pending, 2 minAvailable; Pending: 1 Unschedulable".
func (j *JobInfo) FitError() string {
	hist := map[string]int{"minAvailable": int(j.MinAvailable)}
	for s, ts := range j.TaskStatusIndex {
		hist[s.String()] += len(ts)
	}
	phase := PodGroupNotReady
	if j.IsReady() {
		phase = PodGroupReady
	}
	msg := phase + ", " + histogram(hist)
	if pending := j.TaskStatusIndex[Pending]; len(pending) > 0 {
		reasons := map[string]int{}
		for id := range pending {
			reason, _, _ := j.TaskSchedulingReason(id)
			reasons[reason]++
		}
		msg += "; Pending: " + histogram(reasons)
	}
	if j.JobFitErrors != "" {
		msg += ". Origin reason is: " + j.JobFitErrors
	} else if t, fe := j.originFitError(); fe != nil {
		msg += ". Origin reason is " + t.Name + ": " + fe.Error()
	}
	return msg
}

// originFitError is the task whose fit error a job's message quotes when
// the job has no fit error of its own, and that error: Volcano quotes the
// first task met in its task map that has one, which is map order; here,
// the first by pod name, so that the message is the same from one session
// to the next and the ports can word it alike.
func (j *JobInfo) originFitError() (*TaskInfo, *FitErrors) {
	var origin *TaskInfo
	var fe *FitErrors
	for id, e := range j.NodesFitErrors {
		t := j.Tasks[id]
		if e == nil || t == nil {
			continue
		}
		if origin == nil || t.Name < origin.Name {
			origin, fe = t, e
		}
	}
	return origin, fe
}

// Reasons of the PodScheduled=False condition Volcano's scheduler gives a
// pod it did not bind.
const (
	PodReasonSchedulable   = "Schedulable"
	PodReasonUnschedulable = "Unschedulable"
)

// TaskSchedulingReason says, as Volcano's scheduler does at the end of a
// session, why a task is not bound: the reason and message of its pod's
// PodScheduled condition, and the node to nominate for it. A task that a
// discarded statement had allocated "can possibly be assigned" (the gang
// was short); one pipelined on a node where victims were evicted for it is
// nominated to that node; a pending one gets its nodes' fit errors.
func (j *JobInfo) TaskSchedulingReason(id TaskID) (reason, msg, nominated string) {
	t, ok := j.Tasks[id]
	if !ok {
		return "", "", ""
	}
	tx := t.transaction()
	if t.LastTransaction != nil {
		tx = *t.LastTransaction
	}
	switch tx.Status {
	case Allocated:
		return PodReasonSchedulable, fmt.Sprintf("Pod %s/%s can possibly be assigned to %s, once minAvailable is satisfied", t.Namespace, t.Name, tx.NodeName), ""
	case Pipelined:
		if tx.EvictionOccurred {
			nominated = tx.NodeName
		}
		return PodReasonUnschedulable, fmt.Sprintf("Pod %s/%s can possibly be assigned to %s, once resource is released and minAvailable is satisfied", t.Namespace, t.Name, tx.NodeName), nominated
	case Pending:
		if fe := j.NodesFitErrors[id]; fe != nil {
			return PodReasonUnschedulable, fe.Error(), ""
		}
		return PodReasonUnschedulable, j.JobFitErrors, ""
	default:
		return tx.Status.String(), j.JobFitErrors, ""
	}
}

// How Volcano words a gang's readiness in messages (scheduling.PodGroupReady
// and PodGroupNotReady of its internal API).
const (
	PodGroupReady    = "pod group is ready"
	PodGroupNotReady = "pod group is not ready"
)

// TaskCondition is a task's PodScheduled condition after a session:
// TaskSchedulingReason, with the job's FitError as the message where that
// says nothing (Volcano's base message). base holds the FitError once made:
// a caller that words every task of a job passes the same one, so the job's
// tasks are counted once, not once per task.
func (j *JobInfo) TaskCondition(id TaskID, base *string) (reason, msg, nominated string) {
	reason, msg, nominated = j.TaskSchedulingReason(id)
	if msg == "" {
		if *base == "" {
			*base = j.FitError()
		}
		msg = *base
	}
	return reason, msg, nominated
}

// TaskPendingReason is the message of TaskCondition.
func (j *JobInfo) TaskPendingReason(id TaskID) string {
	var base string
	_, msg, _ := j.TaskCondition(id, &base)
	return msg
}

func histogram(h map[string]int) string {
	parts := make([]string, 0, len(h))
	for k, v := range h {
		parts = append(parts, fmt.Sprintf("%d %s", v, k))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// HardTopology reports whether the job must be placed within one hypernode
// of at most the returned tier.
func (j *JobInfo) HardTopology() (bool, int) { return hardTopology(j.NetworkTopology) }

func hardTopology(nt *v1beta1.NetworkTopologySpec) (bool, int) {
	if nt == nil || nt.HighestTierAllowed == nil {
		return false, 0
	}
	return nt.Mode == v1beta1.HardNetworkTopologyMode, *nt.HighestTierAllowed
}

// AllocatedTaskNum counts the tasks in an allocated status.
func (j *JobInfo) AllocatedTaskNum() int { return allocatedIn(j.TaskStatusIndex) }
