package caldera

// The hooks a policy may implement, one small interface each, mirroring the
// scheduler's native framework. The SDK declares to the scheduler exactly
// the hooks the registered plugin implements; the scheduler calls no other.

// Key orders objects: keys are compared element by element, the lower key
// goes first, and equal keys leave the decision to the next plugin (then
// to creation time and name). A missing element counts as 0. The SDK
// encodes a key as soon as the hook returns it, so a plugin may return a
// slice of its own state or a scratch slice it reuses for the next object.
type Key []float64

// JobOrderKeyer orders jobs within a queue.
type JobOrderKeyer interface {
	JobOrderKey(s *Session, job *Job) Key
}

// TaskOrderKeyer orders the tasks of a job.
type TaskOrderKeyer interface {
	TaskOrderKey(s *Session, task *Task) Key
}

// QueueOrderKeyer orders queues.
type QueueOrderKeyer interface {
	QueueOrderKey(s *Session, queue *Queue) Key
}

// VictimQueueOrderKeyer orders the queues that preemption takes victims
// from, for a preemptor in the queue preemptor.
type VictimQueueOrderKeyer interface {
	VictimQueueOrderKey(s *Session, queue, preemptor *Queue) Key
}

// StableOrderKeys is implemented by a plugin whose order keys depend only
// on what does not change during a session (priorities, names, annotations),
// not on placements: the scheduler then asks for each key once per session
// instead of after every placement.
type StableOrderKeys interface {
	OrderKeysStable() bool
}

// LocalOrderKeys is implemented by a plugin whose order key for an object
// changes only through events on that object: a task's key through events
// naming the task, a job's through events on its tasks or its admission, a
// queue's through events on its jobs' tasks (a DRF share, a gang's
// readiness, a queue's share of its deserved resources). The scheduler
// then asks again only for the objects events touched, instead of for the
// whole list after every placement. A key that reads anything else (the
// cluster's free resources, another job's state) must not declare it.
type LocalOrderKeys interface {
	OrderKeysLocal() bool
}

// NodeLocalPredicates is implemented by a plugin whose PredicateBatch
// verdict for a task and a node depends on nothing but that node and the
// task's shape: every field of the task except its namespace, name, job,
// labels, annotations, creation time, status and node. Not on other nodes,
// other tasks or jobs, nor on the order nodes are asked in; the pods on the
// node count only through the node's resources, pod count and host ports.
// The scheduler then keeps each verdict while the node is unchanged and
// asks again only about nodes that changed: a gang's second task costs one
// node instead of hundreds. A verdict that reads anything else must not
// declare it, or stale verdicts will place pods.
type NodeLocalPredicates interface {
	PredicatesNodeLocal() bool
}

// ClaimChecker is implemented by a predicates plugin that wants the
// scheduler to run Volcano's volume and device checks (VolumeBinding,
// VolumeZone, NodeVolumeLimits, DynamicResources) for it (ABI 1.10), with
// the plugin's arguments predicate.VolumeBindingEnable,
// predicate.VolumeZoneEnable, predicate.NodeVolumeLimitsEnable,
// predicate.DynamicResourceAllocationEnable, volumebinding.* and
// dynamicresources.filterTimeoutSeconds. PredicateBatch then reads their
// outcome per node with Session.NodeClaims; the scheduler rejects at
// pre-predicate the pods whose claims fit nowhere, reserves and writes
// what a placement takes, and keeps no verdict for a task it sends claims
// for. It needs PredicateBatcher.
type ClaimChecker interface {
	ClaimChecks() bool
}

// SessionNodeLocalPredicates is implemented by a NodeLocalPredicates plugin
// whose verdicts are node-local in some sessions only: one that reads other
// pods when a task of the session has inter-pod affinity or topology spread
// rules. PredicatesNodeLocalIn is asked after OnSessionOpen; false withdraws
// the promise for that session (ABI 1.4): the scheduler keeps no verdict of
// it and serves none kept from earlier sessions.
type SessionNodeLocalPredicates interface {
	PredicatesNodeLocalIn(s *Session) bool
}

// NodeLocalClasser is implemented by a SessionNodeLocalPredicates plugin
// that, in a session where it withdraws the promise, can still name tasks
// whose verdicts are node-local (ABI 1.4): for a task of class c >= 0,
// the verdict on a node depends on nothing but that node (the pods on it,
// any of their fields) and the task's shape and class, for the whole
// session. Tasks of one shape and one class then share verdicts, as
// NodeLocalPredicates' tasks of one shape do; give tasks that read their
// own labels (another pod's anti-affinity selects them) a class per set of
// labels. PredicatesNodeLocalClasses is asked after PredicatesNodeLocalIn
// said false; classes has one entry per task handle, each -1 (not
// node-local) on entry. The scheduler keeps such verdicts for this session
// only, and serves a task from them only when its PrePredicate was asked
// since the last event, so a plugin may bring state up to date there.
type NodeLocalClasser interface {
	PredicatesNodeLocalClasses(s *Session, classes []int32)
}

// DomainRuler is implemented by a NodeLocalClasser whose verdicts read,
// beyond the node and the task's shape and class, one label of the node
// (its topology domain) through rules whose outcome depends on other
// nodes: kube-scheduler's inter-pod affinity and topology spread
// (ABI 1.5). PredicateDomainRules is asked after a PrePredicate that
// passed, on a scheduler that reads rules (Session.HostABIMinor 5 or
// later), for a task of class c >= 0. It fills rules with the rules as of
// now (none when they pass every node) and reports whether they are
// complete; false sends none, and the task is then served as class c
// alone would serve it.
//
// In return for the rules the plugin promises that, until the next event,
// the task's verdict on a node depends on nothing but that node, the
// task's shape without its inter-pod rules (podAffinity, podAntiAffinity,
// affinityError, spreadConstraints, spreadDefaulted) and its class c, and,
// where some rule fails, rules.Class and the state in which each rule
// fails there: tasks whose failing verdicts word their failures alike
// share a rule class. The scheduler then keeps both kinds of verdicts and
// asks again only about nodes that changed, also for the nodes a spread
// gang's search walks past.
type DomainRuler interface {
	PredicateDomainRules(s *Session, task *Task, rules *DomainRules) bool
}

// DomainRules are a task's domain rules, in the order its filters apply
// them. The scheduler serves a task with more than MaxDomainRules without
// kept verdicts.
type DomainRules struct {
	Class int32
	Rules []DomainRule
}

// MaxDomainRules is the most rules a task may send; the scheduler serves a
// task with more without kept verdicts.
const MaxDomainRules = 32

// DomainRule is one rule: a node lacks the label Key, carries one of
// Values, or carries another value, and the rule fails in the states Fail
// names.
type DomainRule struct {
	Key    string
	Values []string
	Fail   RuleFail
}

// RuleFail is a set of the states in which a DomainRule fails.
type RuleFail uint8

// The states of a node for a DomainRule.
const (
	FailMissing  RuleFail = 1
	FailListed   RuleFail = 2
	FailUnlisted RuleFail = 4
)

// Add appends a rule and returns it, reusing the Values of a rule an
// earlier task left in rules.Rules' array.
func (r *DomainRules) Add(key string, fail RuleFail) *DomainRule {
	if len(r.Rules) < cap(r.Rules) {
		r.Rules = r.Rules[:len(r.Rules)+1]
		d := &r.Rules[len(r.Rules)-1]
		d.Key, d.Values, d.Fail = key, d.Values[:0], fail
		return d
	}
	r.Rules = append(r.Rules, DomainRule{Key: key, Fail: fail})
	return &r.Rules[len(r.Rules)-1]
}

// NodeLocalScorer is implemented by a plugin whose NodeOrderBatch score
// for a task and a node depends, in some sessions, on nothing but that
// node and the task's shape (as NodeLocalPredicates words it): not on the
// other nodes of the batch either, so no normalisation over them.
// ScoresNodeLocal is asked after OnSessionOpen; when it says true, the
// scheduler keeps each score for the rest of the session while the node is
// unchanged, and asks only about nodes without one. A score that reads
// anything else must not be declared node-local, or stale scores will
// place pods.
type NodeLocalScorer interface {
	ScoresNodeLocal(s *Session) bool
}

// RulelessScorer is implemented by a NodeLocalScorer whose node-local
// scores, in some sessions, do not read a task's inter-pod rules either
// (podAffinity, podAntiAffinity, affinityError, spreadConstraints,
// spreadDefaulted; ABI 1.5). ScoresReadNoRules is asked after
// ScoresNodeLocal said true, on a scheduler that reads it
// (Session.HostABIMinor 5 or later); when it says true, tasks that differ
// only in those rules share kept scores: the pods of many gangs with
// spread constraints or anti-affinity of their own, in a session where no
// score reads them.
type RulelessScorer interface {
	ScoresReadNoRules(s *Session) bool
}

// ShapeLocalPrePredicater is implemented by a plugin whose PrePredicate
// verdict depends, in some sessions, on nothing but the task's shape (as
// NodeLocalPredicates words it) and the session's arguments: not on other
// tasks, jobs or nodes, nor on what the session placed or evicted.
// PrePredicatesByShape is asked after OnSessionOpen; when it says true, the
// scheduler asks once per shape and keeps the verdict for the rest of the
// session.
type ShapeLocalPrePredicater interface {
	PrePredicatesByShape(s *Session) bool
}

// PrePredicater rejects a task before any node is looked at.
type PrePredicater interface {
	PrePredicate(s *Session, task *Task) Verdict
}

// PredicateBatcher decides for many nodes at once whether the task may go
// there: verdicts[i] is for nodes[i], and arrives as Pass.
type PredicateBatcher interface {
	PredicateBatch(s *Session, task *Task, nodes []*Node, verdicts []Verdict)
}

// NodeOrderBatcher scores a task on many nodes at once: scores[i] is for
// nodes[i], and arrives zeroed. The scheduler adds the scores of every
// scoring plugin.
type NodeOrderBatcher interface {
	NodeOrderBatch(s *Session, task *Task, nodes []*Node, scores []float64) error
}

// BestNodePicker may pick the node outright among the scored candidates,
// which arrive best score first; nil leaves the choice to the scheduler.
type BestNodePicker interface {
	BestNode(s *Session, task *Task, nodes []*Node, scores []float64) *Node
}

// PreemptableFilter names, among candidates, the tasks that may be evicted
// to make room for preemptor in its own queue. voted false abstains.
type PreemptableFilter interface {
	Preemptable(s *Session, preemptor *Task, candidates []*Task) (victims []*Task, voted bool)
}

// ReclaimableFilter is PreemptableFilter across queues.
type ReclaimableFilter interface {
	Reclaimable(s *Session, reclaimer *Task, candidates []*Task) (victims []*Task, voted bool)
}

// EvictableFilter names, among a gang eviction's candidates, the tasks that
// may be evicted (ABI 1.8). gangpreempt and gangreclaim group a starving
// job's candidates by job and order them before asking; voted false
// abstains. Native gang, priority, conformance and capacity serve it.
type EvictableFilter interface {
	Evictable(s *Session, ctx EvictionContext, candidates []*Task) (victims []*Task, voted bool)
}

// EvictionKind says which action asks EvictableFilter.
type EvictionKind int32

const (
	EvictGangPreempt EvictionKind = 1
	EvictGangReclaim EvictionKind = 2
)

// EvictionContext is what a gang eviction asks about: the starving job and
// the hypernode its candidates run in ("<cluster-top-hypernode>" for the
// whole cluster).
type EvictionContext struct {
	Kind      EvictionKind
	Job       *Job
	HyperNode string
}

// HyperNodeScorer scores hypernodes for a job with a network topology
// (ABI 1.9): allocate asks it about the candidates of one of the job's
// gradients, and places the job in the best scored one where it fits;
// scores of every plugin add up. Fill scores, one per hypernode; an error
// fails the call (allocate then ranks by the other plugins' scores).
type HyperNodeScorer interface {
	HyperNodeOrder(s *Session, search HyperNodeSearch, hyperNodes []*HyperNode, scores []float64) error
}

// HyperNodeGradienter lists, for a job with a network topology, the
// hypernodes within search.Within in which the scheduler may try to place
// it (or, for PurposeEvict, look for victims), in gradients tried in turn
// (ABI 1.9); a hypernode the job cannot use is left out. The first plugin
// of the first tier that offers it decides. Return nil to offer none.
type HyperNodeGradienter interface {
	HyperNodeGradient(s *Session, search HyperNodeSearch) [][]*HyperNode
}

// HyperNodeSearch is what a hypernode hook is asked about: the job, the
// lowest hypernode holding what it placed before this call (nil for none;
// Job.AllocatedHyperNode is as the session opened), and for
// HyperNodeGradienter the hypernode searched within (the cluster top for
// the whole cluster) and which search asks, for what.
type HyperNodeSearch struct {
	Job       *Job
	Allocated *HyperNode
	Within    *HyperNode
	Scope     GradientScope
	Purpose   SearchPurpose
}

// GradientScope says which search asks for a gradient: allocate first
// searches for the job as a whole (room for its minResources), then
// within each hypernode for its pending tasks (room for what they ask).
type GradientScope int32

const (
	ScopeJob   GradientScope = 0
	ScopeTasks GradientScope = 1
)

// SearchPurpose says why: to place tasks on free room (allocate), or to
// find domains where evicting others could make room (gangpreempt and
// gangreclaim, which ask widest first and judge by allocatable room).
type SearchPurpose int32

const (
	PurposeAllocate SearchPurpose = 0
	PurposeEvict    SearchPurpose = 1
)

// OverusedChecker says a queue uses more than its share; any plugin saying
// so stops allocation to the queue.
type OverusedChecker interface {
	Overused(s *Session, queue *Queue) bool
}

// AllocatableChecker says whether the queue may take the task now.
type AllocatableChecker interface {
	Allocatable(s *Session, queue *Queue, task *Task) bool
}

// PreemptiveChecker says whether the queue may reclaim for these tasks.
type PreemptiveChecker interface {
	Preemptive(s *Session, queue *Queue, tasks []*Task) bool
}

// JobReadyChecker says whether a job's placements may be committed.
type JobReadyChecker interface {
	JobReady(s *Session, job *Job) bool
}

// Vote is an answer to a question decided by permit, abstain or reject.
type Vote int32

const (
	VoteReject  Vote = -1
	VoteAbstain Vote = 0
	VotePermit  Vote = 1
)

// JobPipelinedVoter votes whether a job may keep its pipelined tasks.
type JobPipelinedVoter interface {
	JobPipelined(s *Session, job *Job) Vote
}

// ValidateResult is a failed JobValid answer.
type ValidateResult struct {
	Reason  string
	Message string
}

// JobValidator rejects a job before any action handles it; nil passes.
type JobValidator interface {
	JobValid(s *Session, job *Job) *ValidateResult
}

// JobEnqueueableVoter votes whether a pending job may be admitted.
type JobEnqueueableVoter interface {
	JobEnqueueable(s *Session, job *Job) Vote
}

// JobEnqueuedObserver is told that a job was admitted (its phase is then
// Inqueue in the view); an admission after the session's last hook call
// only if the plugin is a SessionCloser (see EventObserver).
type JobEnqueuedObserver interface {
	JobEnqueued(s *Session, job *Job)
}

// JobStarvingChecker says whether a job still needs resources.
type JobStarvingChecker interface {
	JobStarving(s *Session, job *Job) bool
}

// VictimTasksProvider names tasks to evict whatever needs room.
type VictimTasksProvider interface {
	VictimTasks(s *Session, tasks []*Task) []*Task
}

// TargetJobPicker picks the job to serve first among starving ones; nil
// leaves the choice to the scheduler.
type TargetJobPicker interface {
	TargetJob(s *Session, jobs []*Job) *Job
}

// EventObserver follows the session's placements after the SDK has applied
// them to the view: OnAllocate for a task placed, pipelined or whose
// eviction was undone, OnDeallocate for a task taken off its node or
// evicted. The task's Status says which. The placements made after the
// session's last hook call reach it (and JobEnqueuedObserver) only in a
// plugin that is also a SessionCloser, since no hook of the session would
// see them: rebuild what observers count in OnSessionOpen. Adding an
// OnSessionClose, even an empty one, makes them arrive.
type EventObserver interface {
	OnAllocate(s *Session, task *Task)
	OnDeallocate(s *Session, task *Task)
}

// hookNames lists the ABI names of the hooks the plugin behind i implements.
func hookNames(i implemented) []string {
	out := []string{"session_open", "session_close"}
	add := func(ok bool, name string) {
		if ok {
			out = append(out, name)
		}
	}
	add(i.jobOrderKeyer != nil, "job_order_keys")
	add(i.taskOrderKeyer != nil, "task_order_keys")
	add(i.queueOrderKeyer != nil, "queue_order_keys")
	add(i.victimQueueOrderKeyer != nil, "victim_queue_order_keys")
	add(i.prePredicater != nil, "pre_predicate")
	add(i.predicateBatcher != nil, "predicate_batch")
	add(i.nodeOrderBatcher != nil, "node_order_batch")
	add(i.bestNodePicker != nil, "best_node")
	add(i.preemptableFilter != nil, "preemptable")
	add(i.reclaimableFilter != nil, "reclaimable")
	add(i.overusedChecker != nil, "overused")
	add(i.allocatableChecker != nil, "allocatable")
	add(i.preemptiveChecker != nil, "preemptive")
	add(i.jobReadyChecker != nil, "job_ready")
	add(i.jobPipelinedVoter != nil, "job_pipelined")
	add(i.jobValidator != nil, "job_valid")
	add(i.jobEnqueueableVoter != nil, "job_enqueueable")
	add(i.jobStarvingChecker != nil, "job_starving")
	add(i.victimTasksProvider != nil, "victim_tasks")
	add(i.targetJobPicker != nil, "target_job")
	add(i.cacheEventHandler != nil, "cache_event")
	add(i.evictableFilter != nil, "evictable")
	add(i.hyperNodeScorer != nil, "hyper_node_order")
	add(i.hyperNodeGradienter != nil, "hyper_node_gradient")
	add(i.allocator != nil, "allocate")
	return out
}

// ClaimStage says which of the scheduler's volume and device checks a
// ClaimCheck reports (ABI 1.10), in the order the native predicates plugin
// runs them among its own filters.
type ClaimStage int32

const (
	// StageClaims: the pod's volume claims could not be read; after
	// NodePorts, before InterPodAffinity.
	StageClaims ClaimStage = iota
	// StageLimits is NodeVolumeLimits, after InterPodAffinity.
	StageLimits
	// StageZone is VolumeZone, after NodeVolumeLimits.
	StageZone
	// StageBinding is VolumeBinding, after PodTopologySpread.
	StageBinding
	// StageDevices is DynamicResources, after VolumeBinding.
	StageDevices
)

// Ends reports whether the check stops the node's filtering: every failure
// but NodeVolumeLimits' Unschedulable one, whose reasons add to the rest.
func (c *ClaimCheck) Ends() bool {
	return ClaimStage(c.Stage) != StageLimits || Code(c.Code) != Unschedulable
}
