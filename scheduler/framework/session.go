package framework

import (
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/klog/v2"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/conf"
	"github.com/caldera-scheduler/caldera/scheduler/metrics"
)

// Session is one scheduling cycle over one snapshot. Actions read and change
// its jobs and nodes through Statements; nothing reaches the cluster until a
// Statement commits.
type Session struct {
	UID types.UID

	Jobs   map[api.JobID]*api.JobInfo
	Nodes  map[string]*api.NodeInfo
	Queues map[api.QueueID]*api.QueueInfo
	// JobList holds the session's jobs ordered by ID. Whoever walks every
	// job walks this list, so that a session decides the same way on every
	// run: priority queues fed in map order would break ties differently
	// each time, and float sums would round differently.
	JobList []*api.JobInfo
	// NodeList holds the session's nodes in a stable order.
	NodeList []*api.NodeInfo
	// TotalResource is the allocatable sum of the session's nodes.
	TotalResource *api.Resource
	// NamespaceLabels are the labels of the cluster's Namespace objects.
	NamespaceLabels map[string]map[string]string
	// Workloads give pods without spread constraints default ones (see
	// SpreadDefaults).
	Workloads *api.Workloads
	// DisruptionBudgets and QuotaStatus are the cluster's
	// PodDisruptionBudgets and its ResourceQuotas' status per namespace.
	DisruptionBudgets []*policyv1.PodDisruptionBudget
	QuotaStatus       map[string]map[string]v1.ResourceQuotaStatus
	// Storage holds the storage objects the volume filters read; nil
	// when the cache watches none.
	Storage *api.Storage
	// Devices holds the objects the dynamic resource allocation filter
	// reads; nil when the cache watches none.
	Devices *api.Devices
	// HyperNodes is the network topology, ClusterTopHyperNode included.
	HyperNodes *api.HyperNodes

	Tiers          []conf.Tier
	Configurations []conf.Configuration
	// Actions are the configured actions' names, in order.
	Actions []string

	cache Cache
	fits  *api.FitCache
	// generations holds NodeList's Generations by position, kept current
	// (NodeGenerations).
	generations []uint64
	// positioned is the node list whose positions in NodeList are
	// positions (SetPositions).
	positioned     []*api.NodeInfo
	positions      []int
	instances      [][]instance
	hooks          *hookTable
	podRulesOnce   sync.Once
	podRules       bool
	victimTrial    bool
	spreadMu       sync.Mutex
	spreadDefaults map[*v1.Pod]labels.Selector
	// refused holds the jobs no action may schedule, with why.
	refused map[api.JobID]*ValidateResult
	// podGroupStatus is each job's PodGroup status at open, so that close
	// writes only what changed.
	podGroupStatus map[api.JobID]v1beta1.PodGroupStatus
}

// OpenSession takes a snapshot from the cache, instantiates the configured
// plugins tier by tier and lets each open. A plugin whose factory fails is
// reported in the error; the configuration was validated at load, so this
// means a plugin changed under us.
func OpenSession(cache Cache, registry Registry, cfg *conf.Config) (*Session, error) {
	snap := cache.Snapshot()
	ssn := &Session{
		UID:               uuid.NewUUID(),
		Jobs:              snap.Jobs,
		Nodes:             snap.Nodes,
		Queues:            snap.Queues,
		NamespaceLabels:   snap.NamespaceLabels,
		Workloads:         snap.Workloads,
		DisruptionBudgets: snap.DisruptionBudgets,
		QuotaStatus:       snap.QuotaStatus,
		Storage:           snap.Storage,
		Devices:           snap.Devices,
		TotalResource:     api.EmptyResource(),
		Tiers:             cfg.Tiers,
		Configurations:    cfg.Configurations,
		Actions:           cfg.Actions,
		cache:             cache,
		podGroupStatus:    make(map[api.JobID]v1beta1.PodGroupStatus, len(snap.Jobs)),
	}
	for _, name := range snap.NodeList {
		if n, ok := snap.Nodes[name]; ok {
			ssn.NodeList = append(ssn.NodeList, n)
		}
	}
	if len(ssn.NodeList) != len(ssn.Nodes) {
		ssn.NodeList = sortedNodes(ssn.Nodes)
	}
	for i, n := range ssn.NodeList {
		n.Index = i
		ssn.TotalResource.Add(n.Allocatable)
	}
	ssn.fits = api.NewFitCache(ssn.NodeList)
	ssn.generations = api.TrackGenerations(ssn.NodeList)
	ssn.JobList = make([]*api.JobInfo, 0, len(ssn.Jobs))
	for _, j := range ssn.Jobs {
		ssn.JobList = append(ssn.JobList, j)
	}
	sort.Slice(ssn.JobList, func(a, b int) bool { return ssn.JobList[a].UID < ssn.JobList[b].UID })
	for _, j := range ssn.JobList {
		if j.PodGroup != nil {
			ssn.podGroupStatus[j.UID] = *j.PodGroup.Status.DeepCopy()
		}
	}
	ssn.openTopology(snap.HyperNodes)

	for ti := range cfg.Tiers {
		var tier []instance
		for pi := range cfg.Tiers[ti].Plugins {
			opt := &cfg.Tiers[ti].Plugins[pi]
			factory, ok := registry[opt.Name]
			if !ok {
				return nil, fmt.Errorf("plugin %q is not registered", opt.Name)
			}
			p, err := factory(opt.Arguments)
			if err != nil {
				return nil, fmt.Errorf("plugin %q: %w", opt.Name, err)
			}
			tier = append(tier, instance{plugin: p, option: opt})
		}
		ssn.instances = append(ssn.instances, tier)
	}
	ssn.hooks = buildHookTable(ssn.instances)
	ssn.refuseUnseenSubJobs()
	for _, tier := range ssn.instances {
		for _, in := range tier {
			start := time.Now()
			in.plugin.OnSessionOpen(ssn)
			metrics.PluginLatency.WithLabelValues(in.option.Name, "OnSessionOpen").Observe(metrics.SinceMicroseconds(start))
		}
	}
	return ssn, nil
}

func sortedNodes(nodes map[string]*api.NodeInfo) []*api.NodeInfo {
	out := make([]*api.NodeInfo, 0, len(nodes))
	for _, n := range nodes {
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Close lets every plugin close, in configuration order, then writes back each
// job's PodGroup status where it changed.
func (ssn *Session) Close() {
	api.UntrackGenerations(ssn.NodeList, ssn.generations)
	for _, tier := range ssn.instances {
		for _, in := range tier {
			start := time.Now()
			in.plugin.OnSessionClose(ssn)
			metrics.PluginLatency.WithLabelValues(in.option.Name, "OnSessionClose").Observe(metrics.SinceMicroseconds(start))
		}
	}
	for _, j := range ssn.Jobs {
		if j.PodGroup == nil {
			continue
		}
		j.PodGroup.Status = ssn.jobStatus(j)
		old, had := ssn.podGroupStatus[j.UID]
		ssn.cache.UpdateJobStatus(j, !had || podGroupStatusChanged(j.PodGroup.Status, old))
	}
	if w, ok := ssn.cache.(QueueStatusWriter); ok {
		ssn.writeQueueStatus(w)
	}
}

// writeQueueStatus sets each queue's status.allocated to what its jobs'
// allocated tasks request, as Volcano does at session close, and hands over
// only the queues where that changed.
func (ssn *Session) writeQueueStatus(w QueueStatusWriter) {
	allocated := make(map[api.QueueID]*api.Resource, len(ssn.Queues))
	for _, j := range ssn.JobList {
		for status, tasks := range j.TaskStatusIndex {
			if !api.AllocatedStatus(status) {
				continue
			}
			sum := allocated[j.Queue]
			if sum == nil {
				sum = api.EmptyResource()
				allocated[j.Queue] = sum
			}
			for _, t := range tasks {
				sum.Add(t.Resreq)
			}
		}
	}
	for id, q := range ssn.Queues {
		if q.Queue == nil {
			continue
		}
		want := v1.ResourceList{}
		if sum := allocated[id]; sum != nil {
			want = sum.ToResourceList()
		}
		if equality.Semantic.DeepEqual(q.Queue.Status.Allocated, want) ||
			(len(q.Queue.Status.Allocated) == 0 && len(want) == 0) {
			continue
		}
		// The queue object is the informer's; the cache gets a copy.
		updated := q.Queue.DeepCopy()
		updated.Status.Allocated = want
		w.UpdateQueueStatus(updated)
	}
}

// Plugins returns the session's plugin instances in configuration order.
func (ssn *Session) Plugins() []Plugin {
	var out []Plugin
	for _, tier := range ssn.instances {
		for _, in := range tier {
			out = append(out, in.plugin)
		}
	}
	return out
}

// jobStatus derives the PodGroup phase and counts from the job's tasks, as
// Volcano's job updater does.
func (ssn *Session) jobStatus(j *api.JobInfo) v1beta1.PodGroupStatus {
	status := j.PodGroup.Status
	unschedulable := false
	for _, c := range status.Conditions {
		if c.Type == v1beta1.PodGroupUnschedulableType && c.Status == v1.ConditionTrue && c.TransitionID == string(ssn.UID) {
			unschedulable = true
			break
		}
	}
	status.Phase = podGroupPhase(j, unschedulable)
	status.Running = int32(len(j.TaskStatusIndex[api.Running]))
	status.Failed = int32(len(j.TaskStatusIndex[api.Failed]))
	status.Succeeded = int32(len(j.TaskStatusIndex[api.Succeeded]))
	return status
}

func podGroupPhase(j *api.JobInfo, unschedulable bool) v1beta1.PodGroupPhase {
	if len(j.TaskStatusIndex[api.Running]) != 0 && unschedulable {
		return v1beta1.PodGroupUnknown
	}
	scheduled := int(j.ScheduledTaskNum() + j.ReleasingScheduledTaskNum())
	completed := len(j.TaskStatusIndex[api.Succeeded]) + len(j.TaskStatusIndex[api.Failed])
	if int32(scheduled) >= j.PodGroup.Spec.MinMember {
		if scheduled == completed {
			return v1beta1.PodGroupCompleted
		}
		return v1beta1.PodGroupRunning
	}
	if j.PodGroup.Status.Phase != v1beta1.PodGroupInqueue {
		return v1beta1.PodGroupPending
	}
	return j.PodGroup.Status.Phase
}

// podGroupStatusChanged ignores condition timestamps and transition IDs, which
// change every session, so that an unchanged job causes no write.
func podGroupStatusChanged(cur, old v1beta1.PodGroupStatus) bool {
	cc, oc := cur.Conditions, old.Conditions
	cur.Conditions, old.Conditions = nil, nil
	if !equality.Semantic.DeepEqual(cur, old) || len(cc) != len(oc) {
		return true
	}
	for i := range cc {
		a, b := cc[i], oc[i]
		a.LastTransitionTime, a.TransitionID = b.LastTransitionTime, b.TransitionID
		if !equality.Semantic.DeepEqual(a, b) {
			return true
		}
	}
	return false
}

// UpdatePodGroupCondition sets (or replaces, by type) a condition on the
// session's copy of a job's PodGroup.
func (ssn *Session) UpdatePodGroupCondition(j *api.JobInfo, cond *v1beta1.PodGroupCondition) {
	if j.PodGroup == nil {
		return
	}
	for i := range j.PodGroup.Status.Conditions {
		if j.PodGroup.Status.Conditions[i].Type == cond.Type {
			j.PodGroup.Status.Conditions[i] = *cond
			return
		}
	}
	j.PodGroup.Status.Conditions = append(j.PodGroup.Status.Conditions, *cond)
}

// NewCondition builds a PodGroup condition stamped with this session.
func (ssn *Session) NewCondition(t v1beta1.PodGroupConditionType, status v1.ConditionStatus, reason, msg string) *v1beta1.PodGroupCondition {
	return &v1beta1.PodGroupCondition{
		Type:               t,
		Status:             status,
		TransitionID:       string(ssn.UID),
		LastTransitionTime: metav1.NewTime(time.Now()),
		Reason:             reason,
		Message:            api.TruncateMessage(msg, api.ConditionMessageLimit),
	}
}

// ActionArguments returns the arguments configured for an action.
func (ssn *Session) ActionArguments(action string) Arguments {
	return conf.ActionArguments(ssn.Configurations, action)
}

// allocate, pipeline and evict change the session's state and tell the event
// handlers; the Statement records them so that they can be undone.

// allocate places the task and tells every event handler; nobody can refuse
// (the session-level Allocate of backfill, as in Volcano).
func (ssn *Session) allocate(task *api.TaskInfo, node *api.NodeInfo, status api.TaskStatus) error {
	if err := ssn.place(task, node, status); err != nil {
		return err
	}
	each(ssn.hooks.eventHandlers, func(h EventHandler) { h.OnAllocate(task) })
	return nil
}

// allocateRefusable places the task for a Statement: every AllocateRefuser
// is asked (all of them, even after one refused) and the others are told;
// a refusal undoes the placement at once, telling every handler, and the
// refusals come back as the error.
func (ssn *Session) allocateRefusable(task *api.TaskInfo, node *api.NodeInfo, status api.TaskStatus) error {
	if err := ssn.place(task, node, status); err != nil {
		return err
	}
	var refusals []error
	for _, tier := range ssn.hooks.eventHandlers {
		for _, e := range tier {
			r, ok := e.fn.(AllocateRefuser)
			if !ok {
				e.fn.OnAllocate(task)
				continue
			}
			if err := r.TryAllocate(task); err != nil {
				refusals = append(refusals, fmt.Errorf("plugin %s: %w", e.plugin, err))
			}
		}
	}
	if len(refusals) == 0 {
		return nil
	}
	ssn.deallocate(task)
	return fmt.Errorf("placing task %s on node %s was refused and undone: %w", task.Key(), node.Name, errors.Join(refusals...))
}

func (ssn *Session) place(task *api.TaskInfo, node *api.NodeInfo, status api.TaskStatus) error {
	job, ok := ssn.Jobs[task.Job]
	if !ok {
		return fmt.Errorf("job %s of task %s is not in the session", task.Job, task.Key())
	}
	job.UpdateTaskStatus(task, status)
	task.NodeName = node.Name
	node.AddTask(task)
	return nil
}

func (ssn *Session) deallocate(task *api.TaskInfo) {
	if job, ok := ssn.Jobs[task.Job]; ok {
		job.UpdateTaskStatus(task, api.Pending)
	}
	if node, ok := ssn.Nodes[task.NodeName]; ok {
		node.RemoveTask(task)
	}
	// The handlers still see the node the task leaves, as Volcano's do.
	each(ssn.hooks.eventHandlers, func(h EventHandler) { h.OnDeallocate(task) })
	task.NodeName, task.JobAllocatedHyperNode = "", ""
}

func (ssn *Session) evict(task *api.TaskInfo) (api.TaskStatus, error) {
	job, ok := ssn.Jobs[task.Job]
	if !ok {
		return 0, fmt.Errorf("job %s of task %s is not in the session", task.Job, task.Key())
	}
	prev := task.Status
	job.UpdateTaskStatus(task, api.Releasing)
	if node, ok := ssn.Nodes[task.NodeName]; ok {
		node.UpdateTask(task)
	}
	each(ssn.hooks.eventHandlers, func(h EventHandler) { h.OnDeallocate(task) })
	return prev, nil
}

func (ssn *Session) unevict(task *api.TaskInfo, prev api.TaskStatus) {
	if job, ok := ssn.Jobs[task.Job]; ok {
		job.UpdateTaskStatus(task, prev)
	}
	if node, ok := ssn.Nodes[task.NodeName]; ok {
		node.UpdateTask(task)
	}
	each(ssn.hooks.eventHandlers, func(h EventHandler) { h.OnAllocate(task) })
}

// dispatch hands an allocated task to the cache for binding.
func (ssn *Session) dispatch(task *api.TaskInfo) error {
	if err := ssn.cache.Bind(task, task.NodeName); err != nil {
		return err
	}
	if job, ok := ssn.Jobs[task.Job]; ok {
		job.UpdateTaskStatus(task, api.Binding)
	}
	each(ssn.hooks.eventHandlers, func(h EventHandler) {
		if d, ok := h.(DispatchObserver); ok {
			d.OnDispatch(task)
		}
	})
	return nil
}

func logSessionError(ssn *Session, what string, err error) {
	klog.ErrorS(err, what, "session", ssn.UID)
}
