package framework

import (
	"fmt"
	"sort"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// Plugin is the base of every plugin. A new instance is made for every
// session by its Factory, so a plugin may keep per-session state in its
// fields.
//
// Lifecycle: Factory(args) -> OnSessionOpen -> hooks called by actions ->
// OnSessionClose.
type Plugin interface {
	Name() string
	// OnSessionOpen runs before any action, in tier order; plugins compute
	// their per-session state (shares, deserved resources) here.
	OnSessionOpen(ssn *Session)
	// OnSessionClose runs after the last action, in tier order.
	OnSessionClose(ssn *Session)
}

// Factory makes a plugin from its tier entry's arguments. It is also called
// once when the configuration is loaded, so that bad arguments are reported
// then and not at the first session.
type Factory func(args Arguments) (Plugin, error)

// Registry maps plugin names to factories. It is a value: build one with
// NewRegistry and Register, pass it where it is needed.
type Registry map[string]Factory

// NewRegistry returns an empty registry.
func NewRegistry() Registry { return Registry{} }

// Register adds a factory; a name registered twice is an error.
func (r Registry) Register(name string, f Factory) error {
	if _, dup := r[name]; dup {
		return fmt.Errorf("plugin %q is already registered", name)
	}
	r[name] = f
	return nil
}

// Merge adds every entry of other; a name in both is an error.
func (r Registry) Merge(other Registry) error {
	for name, f := range other {
		if err := r.Register(name, f); err != nil {
			return err
		}
	}
	return nil
}

// Names returns the registered names, sorted.
func (r Registry) Names() []string {
	out := make([]string, 0, len(r))
	for n := range r {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Hook names one extension point. Its string is the name used in logs, metrics
// and the Wasm ABI's hook list.
type Hook string

// The hooks, in the order of Volcano's session_plugins.
const (
	HookJobOrder         Hook = "jobOrder"
	HookQueueOrder       Hook = "queueOrder"
	HookVictimQueueOrder Hook = "victimQueueOrder"
	HookTaskOrder        Hook = "taskOrder"
	HookPrePredicate     Hook = "prePredicate"
	HookPredicate        Hook = "predicate"
	HookNodeOrder        Hook = "nodeOrder"
	HookBatchNodeOrder   Hook = "batchNodeOrder"
	HookNodeMap          Hook = "nodeMap"
	HookNodeReduce       Hook = "nodeReduce"
	HookBestNode         Hook = "bestNode"
	HookPreemptable      Hook = "preemptable"
	HookReclaimable      Hook = "reclaimable"
	HookOverused         Hook = "overused"
	HookAllocatable      Hook = "allocatable"
	HookPreemptive       Hook = "preemptive"
	HookJobReady         Hook = "jobReady"
	HookJobPipelined     Hook = "jobPipelined"
	HookJobValid         Hook = "jobValid"
	HookJobEnqueueable   Hook = "jobEnqueueable"
	HookJobEnqueued      Hook = "jobEnqueued"
	HookJobStarving      Hook = "jobStarving"
	HookVictimTasks      Hook = "victimTasks"
	HookTargetJob        Hook = "targetJob"
	HookReservedNodes    Hook = "reservedNodes"
	HookSubJobReady      Hook = "subJobReady"
	HookSubJobPipelined  Hook = "subJobPipelined"
	HookSubJobOrder      Hook = "subJobOrder"
	HookHyperNodeOrder   Hook = "hyperNodeOrder"
	HookHyperNodeGrad    Hook = "hyperNodeGradient"
	HookEvictable        Hook = "evictable"
	HookEventHandler     Hook = "eventHandler"
)

// HookFilter lets a plugin that implements more hook interfaces than it
// offers (an adapter) say which ones count. Plugins without it offer every
// hook they implement.
type HookFilter interface {
	Offers(h Hook) bool
}

// Vote is a plugin's answer for hooks decided by permit/abstain/reject.
type Vote int

const (
	Reject  Vote = -1
	Abstain Vote = 0
	Permit  Vote = 1
)

// ValidateResult is a JobValid answer.
type ValidateResult struct {
	Pass    bool
	Reason  string
	Message string
}

// NodeScore is one node's score in a NodeMap/NodeReduce round.
type NodeScore struct {
	Name  string
	Score float64
}

// Ordering hooks return <0 when l goes first, >0 when r goes first and 0 when
// the plugin does not care; the first non-zero answer across tiers wins.

// JobOrderer orders jobs within a queue.
type JobOrderer interface {
	JobOrder(l, r *api.JobInfo) int
}

// QueueOrderer orders queues.
type QueueOrderer interface {
	QueueOrder(l, r *api.QueueInfo) int
}

// VictimQueueOrderer orders the queues victims are taken from, for a
// preemptor's queue. It has no enable flag, as in Volcano.
type VictimQueueOrderer interface {
	VictimQueueOrder(l, r, preemptor *api.QueueInfo) int
}

// TaskOrderer orders tasks within a job.
type TaskOrderer interface {
	TaskOrder(l, r *api.TaskInfo) int
}

// PrePredicater rejects a task before any node is looked at; all must pass.
type PrePredicater interface {
	PrePredicate(task *api.TaskInfo) *Status
}

// Predicater says whether a task may go on a node; all must pass.
type Predicater interface {
	Predicate(task *api.TaskInfo, node *api.NodeInfo) *Status
}

// NodeScorer scores one node for a task; scores are summed.
type NodeScorer interface {
	NodeOrder(task *api.TaskInfo, node *api.NodeInfo) (float64, error)
}

// BatchNodeScorer scores many nodes at once: it adds node i's score to
// scores[i] (len(scores) == len(nodes)). Scores are summed across plugins.
// The caller owns scores, so scoring a task allocates nothing per node.
type BatchNodeScorer interface {
	BatchNodeOrder(task *api.TaskInfo, nodes []*api.NodeInfo, scores []float64) error
}

// NodeMapper scores one node in the map phase of a map/reduce scoring.
type NodeMapper interface {
	NodeMap(task *api.TaskInfo, node *api.NodeInfo) (float64, error)
}

// NodeReducer normalises the map-phase scores of its own plugin in place.
type NodeReducer interface {
	NodeReduce(task *api.TaskInfo, scores []NodeScore) error
}

// BestNodePicker may pick the node outright from the scored candidates; the
// first non-nil answer wins.
type BestNodePicker interface {
	BestNode(task *api.TaskInfo, scores map[float64][]*api.NodeInfo) *api.NodeInfo
}

// Evictability hooks return the victims a plugin allows and whether it voted
// at all; within a tier the answers are intersected, and the first tier with
// an answer decides.

// HierarchyTaker marks a plugin that follows the queue tree (spec.parent)
// when its enableHierarchy flag is on.
type HierarchyTaker interface {
	TakesHierarchy()
}

// PreemptableFilter chooses preemption victims within a queue.
type PreemptableFilter interface {
	Preemptable(preemptor *api.TaskInfo, preemptees []*api.TaskInfo) (victims []*api.TaskInfo, voted bool)
}

// ReclaimableFilter chooses reclaim victims across queues.
type ReclaimableFilter interface {
	Reclaimable(reclaimer *api.TaskInfo, reclaimees []*api.TaskInfo) (victims []*api.TaskInfo, voted bool)
}

// EvictableFilter chooses, among a gang eviction's candidates (already
// grouped and ordered by the action), the tasks that may go; Volcano's
// UnifiedEvictableFn. It has no enable flag, as in Volcano, and combines
// across plugins and tiers as the preemptable filter does.
type EvictableFilter interface {
	Evictable(ctx *EvictionContext, candidates []*api.TaskInfo) (victims []*api.TaskInfo, voted bool)
}

// EvictionKind says which action asks EvictableFilter.
type EvictionKind int

const (
	EvictionGangPreempt EvictionKind = iota + 1
	EvictionGangReclaim
)

// EvictionContext is what a gang eviction asks about: the starving job
// and the hypernode whose nodes the candidates run on.
type EvictionContext struct {
	Kind      EvictionKind
	Job       *api.JobInfo
	HyperNode string
}

// OverusedChecker says a queue uses more than its share; any true wins.
type OverusedChecker interface {
	Overused(queue *api.QueueInfo) bool
}

// AllocatableChecker says a queue may take a task; all must agree.
type AllocatableChecker interface {
	Allocatable(queue *api.QueueInfo, candidate *api.TaskInfo) bool
}

// PreemptiveChecker says a queue may reclaim for these tasks; all must agree.
type PreemptiveChecker interface {
	Preemptive(queue *api.QueueInfo, candidates []*api.TaskInfo) bool
}

// JobReadyChecker says a job may be committed; all must agree.
type JobReadyChecker interface {
	JobReady(job *api.JobInfo) bool
}

// JobPipelinedVoter votes whether a job may keep its pipelined tasks.
type JobPipelinedVoter interface {
	JobPipelined(job *api.JobInfo) Vote
}

// JobValidator rejects a job before any action handles it; the first failure
// wins. It has no enable flag, as in Volcano.
type JobValidator interface {
	JobValid(job *api.JobInfo) *ValidateResult
}

// JobEnqueueableVoter votes whether a pending job may be admitted.
type JobEnqueueableVoter interface {
	JobEnqueueable(job *api.JobInfo) Vote
}

// JobEnqueuedObserver is told that a job was admitted.
type JobEnqueuedObserver interface {
	JobEnqueued(job *api.JobInfo)
}

// JobStarvingChecker says a job still needs resources (for preempt).
type JobStarvingChecker interface {
	JobStarving(job *api.JobInfo) bool
}

// VictimTasksProvider names tasks to evict regardless of preemptors; the
// answers of a tier are united, and the first tier with any answer wins.
type VictimTasksProvider interface {
	VictimTasks(tasks []*api.TaskInfo) []*api.TaskInfo
}

// TargetJobPicker picks the job to serve first among starving ones; the first
// plugin with the hook decides.
type TargetJobPicker interface {
	TargetJob(jobs []*api.JobInfo) *api.JobInfo
}

// HyperNodeGradienter lists, for a job with a network topology, the
// hypernodes within the given one in which allocate may try to place it,
// in gradients tried in turn (lower tiers first); a hypernode the job
// cannot use is left out. The first plugin that implements it decides.
// For a job with sub-group policies the tasks' search (ScopeTasks) is one
// sub-job's, sj, by its own topology; sj is nil otherwise.
type HyperNodeGradienter interface {
	HyperNodeGradient(job *api.JobInfo, sj *api.SubJobInfo, within *api.HyperNodeInfo, scope GradientScope, purpose SearchPurpose) [][]*api.HyperNodeInfo
}

// SearchPurpose says why a gradient is asked for: to place tasks on free
// room (allocate), or to find domains where evicting others could make
// room (gangpreempt and gangreclaim), which Volcano asks widest first and
// judges by allocatable rather than idle room.
type SearchPurpose int

const (
	PurposeAllocate SearchPurpose = iota
	PurposeEvict
)

// GradientScope says which search asks for a gradient: allocate first
// searches for the job (Volcano's HyperNodeGradientForJobFn, which checks
// room for the PodGroup's minResources), then within each hypernode for
// its pending tasks (HyperNodeGradientForSubJobFn, which checks room for
// what they request).
type GradientScope int

const (
	ScopeJob GradientScope = iota
	ScopeTasks
)

// HyperNodeScorer scores hypernodes in each of which the job's tasks (one
// sub-job's, sj, for a job with sub-group policies; sj is nil otherwise)
// were placed on trial; the highest sum across plugins wins.
type HyperNodeScorer interface {
	HyperNodeOrder(job *api.JobInfo, sj *api.SubJobInfo, hyperNodes []*api.HyperNodeInfo) (map[string]float64, error)
}

// ReservedNodesMarker sets nodes aside before actions run.
type ReservedNodesMarker interface {
	ReservedNodes()
}

// EventHandler follows tentative decisions as they are made and undone, so
// that a plugin's per-session accounting (shares, queue usage) stays exact.
type EventHandler interface {
	OnAllocate(task *api.TaskInfo)
	OnDeallocate(task *api.TaskInfo)
}

// AllocateRefuser is an EventHandler that may refuse a placement, as a
// Volcano event handler does by setting Event.Err in its AllocateFunc (the
// HTTP extender's allocateFunc verb needs it). When a Statement allocates or
// pipelines a task, the session calls TryAllocate instead of OnAllocate, on
// every handler that has it even after one refused; if any returns an error,
// the placement is undone at once (every event handler hears OnDeallocate,
// the task is pending again) and the Statement returns the errors. Where
// Volcano ignores the callback's error (the session-level Allocate of
// backfill, an eviction undone), OnAllocate is called instead.
type AllocateRefuser interface {
	TryAllocate(task *api.TaskInfo) error
}

// DispatchObserver is an EventHandler that is also told when a committed
// task is handed to the cache for binding (its status becomes Binding).
// The Wasm adapter uses it to keep a module's view of task statuses exact.
type DispatchObserver interface {
	OnDispatch(task *api.TaskInfo)
}
