package runtime

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/vmihailenco/msgpack/v5"
	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/claims"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Policy says what happens when a call into the module fails.
type Policy struct {
	// Ignorable skips the plugin for the rest of the session after a
	// failure, like Volcano's extender.ignorable; otherwise the decision it
	// guards fails safe (no node passes a failed predicate; a failed score
	// scores nothing).
	Ignorable bool
}

// Factory returns a framework factory serving the module as a plugin named
// name in the configuration.
func Factory(name string, p *Plugin, policy Policy) framework.Factory {
	return func(args framework.Arguments) (framework.Plugin, error) {
		if err := checkDeclaredArguments(p.descriptor.Arguments, args); err != nil {
			return nil, err
		}
		a := &adapter{name: name, mod: p, args: args, policy: policy}
		if p.ClaimChecks() {
			c, err := claims.New(args)
			if err != nil {
				return nil, err
			}
			a.claims = c
		}
		return a, nil
	}
}

// adapter is one session's instance of a Wasm plugin in the framework.
type adapter struct {
	name   string
	mod    *Plugin
	args   framework.Arguments
	policy Policy
	// claims are the volume and device checks the host runs for a module
	// that declares claimChecks (adapter_claims.go); nil for others.
	claims *claims.Claims

	ssn     *framework.Session
	lease   *Lease
	handles handles
	events  []abi.Event
	// skipped is set when an ignorable plugin failed this session.
	skipped bool
	// annotated holds the bind annotations the module's allocate gave each
	// task this session, taken back when the task leaves its node.
	annotated map[api.TaskID][]string
	// reported holds the hooks whose failure was logged this session: a
	// failing hook is logged once per session, not once per call.
	reported map[abi.Hook]bool
	// reopens counts the sessions reopened on a fresh instance after a
	// failure destroyed the one holding the view.
	reopens int
	// refused is the module's answer when its session_open answered a
	// status other than OK (an argument it refuses): the instance is sound
	// but holds no session it accepted, so no hook is asked this session
	// and each fails safe (or, ignorable, abstains).
	refused error
	nodes   []int32
	scores  []float64
	// scoresLocal says this session's module promised node-local scores
	// (abi.OpenResult); keptScores holds them per node handle, for this
	// session only: the promise is made again at each session_open.
	scoresLocal bool
	keptScores  []kept[float64]
	// scoresRuleless says the promise of node-local scores holds for the
	// task's shape without its inter-pod rules (1.5).
	scoresRuleless bool
	// preByShape says this session's module promised pre_predicate
	// verdicts that depend on the task's shape alone; keptPre holds them by
	// shape, for this session only.
	preByShape bool
	keptPre    map[uint64]abi.Verdict
	// inTrials says the module's tier entry enables preemptable or
	// allocatable: Volcano then applies a preemption dry run's victims to
	// its PreFilter state, and predicate_batch says when one is under way.
	inTrials bool
	// localWithdrawn says this session's module withdrew its descriptor's
	// node-local promise for the session (abi.OpenResult): its verdicts
	// are neither kept nor recalled until a session_open makes it again.
	localWithdrawn bool
	// classes holds, per task handle, the node-local class the module gave
	// it at this session's open when it withdrew the promise (-1: none),
	// or nil; keptClass holds the verdicts kept under those classes, for
	// this session only. lastPre is the task whose pre_predicate was asked
	// last, and in which epoch: a class serves a task only then.
	classes   []int32
	keptClass keptVerdicts
	lastPre   struct {
		task  int32
		epoch int
		// rules are the domain rules (1.5) that pre_predicate sent, nil
		// for none.
		rules *taskRules
	}
	// domainKeys numbers the values of the label keys domain rules name,
	// for this session's nodes.
	domainKeys map[string]*domainKey
	// taskNode is each task's node handle as the guest last saw it, so
	// that an event marks the node the guest changed.
	taskNode []int32

	// epoch counts the events sent so far; answers that depend on the
	// session's state (predicate verdicts, order keys) are kept until the
	// next event.
	epoch    int
	verdicts predicateCache
	// kept holds a NodeLocal module's last verdicts per node handle. They
	// outlive the session: a verdict stays good while its node's
	// Generation, unique in the process, does not change, and a reopened
	// instance starts without any.
	kept keptVerdicts
	keys orderKeys
	// touched holds, per object, the epoch of the last event that touched
	// it, for modules whose keys only such events change (localKeys).
	touched touchedAt
}

// touchedAt holds the epoch of the last event touching each task, job and
// queue, by handle; 0 means none this session.
type touchedAt struct {
	tasks, jobs, queues []int
}

// size makes room for the session's objects, keeping what a reopened
// session already recorded.
func (t *touchedAt) size(tasks, jobs, queues int) {
	if len(t.tasks) != tasks || len(t.jobs) != jobs || len(t.queues) != queues {
		*t = touchedAt{tasks: make([]int, tasks), jobs: make([]int, jobs), queues: make([]int, queues)}
	}
}

// predicateCache holds one task's verdicts, by node handle, from the
// predicate_batch calls made for it since the last event.
type predicateCache struct {
	mu    sync.Mutex
	task  api.TaskID
	epoch int
	valid bool
	// local says kept verdicts serve this task-epoch: the module is
	// NodeLocal, or gave the task a node-local class, and the task's shape
	// digest is known. store is where they are kept: the module's verdicts
	// (shape) or its class verdicts of this session (shape and class).
	shape uint64
	local bool
	store *keptVerdicts
	// rules are the task's domain rules (1.5) while kept verdicts serve
	// it; ruleShape tells apart, with the rules' class, the verdicts of
	// nodes that fail some rule.
	rules     *taskRules
	ruleShape uint64
	// verdicts and known are indexed by node handle; known marks the
	// verdicts this task-epoch has received.
	verdicts []abi.Verdict
	known    []bool
	// asked counts the nodes sent this task-epoch; it sizes the next window.
	asked int
	err   error
	// window and got are the request's node list and the reply, reused.
	window []int32
	got    []abi.Verdict
	// statuses are the failed verdicts' statuses, shared (status).
	statuses []*framework.Status
	// claimed says the host runs volume or device checks for this task
	// (adapter_claims.go); claims is the request's list, reused.
	claimed bool
	claims  []*abi.NodeClaims
}

// firstPredicateWindow is how many nodes the first predicate_batch call of
// a task-epoch covers; each further call covers as many as were asked
// before it, so a search that keeps going costs a logarithmic number of
// calls. Allocate's search stops after its wanted number of feasible nodes
// (100 to a few hundred), so asking for every node of a large cluster
// would mostly evaluate nodes nobody looks at.
const firstPredicateWindow = 256

var (
	_ framework.Plugin              = &adapter{}
	_ framework.HookFilter          = &adapter{}
	_ framework.EventHandler        = &adapter{}
	_ framework.JobEnqueuedObserver = &adapter{}
)

func (a *adapter) Name() string { return a.name }

// offered maps the framework's hooks to the ABI hook that serves each.
var offered = map[framework.Hook]abi.Hook{
	framework.HookJobOrder:         abi.HookJobOrderKeys,
	framework.HookQueueOrder:       abi.HookQueueOrderKeys,
	framework.HookVictimQueueOrder: abi.HookVictimQueueOrderKeys,
	framework.HookTaskOrder:        abi.HookTaskOrderKeys,
	framework.HookPrePredicate:     abi.HookPrePredicate,
	framework.HookPredicate:        abi.HookPredicateBatch,
	framework.HookBatchNodeOrder:   abi.HookNodeOrderBatch,
	framework.HookBestNode:         abi.HookBestNode,
	framework.HookPreemptable:      abi.HookPreemptable,
	framework.HookReclaimable:      abi.HookReclaimable,
	framework.HookOverused:         abi.HookOverused,
	framework.HookAllocatable:      abi.HookAllocatable,
	framework.HookPreemptive:       abi.HookPreemptive,
	framework.HookJobReady:         abi.HookJobReady,
	framework.HookJobPipelined:     abi.HookJobPipelined,
	framework.HookJobValid:         abi.HookJobValid,
	framework.HookJobEnqueueable:   abi.HookJobEnqueueable,
	framework.HookJobStarving:      abi.HookJobStarving,
	framework.HookVictimTasks:      abi.HookVictimTasks,
	framework.HookTargetJob:        abi.HookTargetJob,
	framework.HookEvictable:        abi.HookEvictable,
	framework.HookHyperNodeOrder:   abi.HookHyperNodeOrder,
	framework.HookHyperNodeGrad:    abi.HookHyperNodeGradient,
}

// Offers registers only the hooks the module declared. Placement events
// and job admissions are always followed: they keep the guest's view
// current whatever hooks it serves.
func (a *adapter) Offers(h framework.Hook) bool {
	switch h {
	case framework.HookEventHandler, framework.HookJobEnqueued:
		return true
	}
	if ah, ok := offered[h]; ok {
		return a.mod.Implements(ah) || a.claimsOffer(h)
	}
	return false
}

func (a *adapter) OnSessionOpen(ssn *framework.Session) {
	a.ssn = ssn
	// First: the checks hold even when the module cannot take part.
	if a.claims != nil {
		a.claims.OnSessionOpen(ssn)
	}
	a.events = a.events[:0]
	a.skipped = false
	a.refused = nil
	a.reported = map[abi.Hook]bool{}
	a.annotated = map[api.TaskID][]string{}
	a.reopens = 0
	a.keys.reset()
	a.domainKeys = nil
	// Dropped before anything can fail: a session whose open fails must
	// not be served the last session's scores.
	a.dropPromises()
	lease, err := a.mod.Lease(context.Background())
	if err != nil {
		a.failed(abi.HookSessionOpen, err)
		a.skipped = a.policy.Ignorable
		return
	}
	a.lease = lease
	a.inTrials = ssn.TakesPartInVictimTrials(a.name)
	if err := a.open(false); err != nil {
		a.failed(abi.HookSessionOpen, err)
		if !lease.Lost() {
			a.refused = err
		}
	}
}

// open sends the session's view as it is now: at session open, and again
// on a fresh instance after the one holding the view was destroyed. Handles
// do not change: newHandles numbers objects the same way every time. An
// instance that served an earlier session gets only the objects that
// differ from what it holds (ABI 1.1).
func (a *adapter) open(reopen bool) error {
	var ev *encodedView
	if reopen {
		ev = encodeView(a.ssn, &objectMemo)
		// A fresh instance rebuilds its state from the view; verdicts of
		// the one that failed are not carried over to it. No lock: a reopen
		// happens within a call, under the predicate cache's lock when a
		// predicate made it.
		a.kept.reset()
	} else {
		ev = viewAtOpen(a.ssn)
	}
	a.handles = ev.handles
	a.touched.size(len(a.handles.taskList), len(a.handles.jobTasks), len(a.handles.allQueues))
	// The adapter's own copy: events move tasks in it as in the guest.
	a.taskNode = append(a.taskNode[:0], a.handles.taskNode...)
	args := map[string]any(a.args)
	if args == nil {
		args = map[string]any{}
	}
	in, err := a.lease.instance(context.Background())
	if err != nil {
		return err
	}
	held := in.held
	if !a.mod.descriptor.Deltas {
		held = nil
	}
	// A guest that undoes its events holds what it was sent: the delta
	// compares with that alone.
	undoes := a.mod.descriptor.UndoEvents
	keeps := a.mod.version.Minor >= 11
	req, next, full, delta, kept := ev.openArgs(held, args, undoes, keeps)
	in.held = nil
	// The view already holds every placement made so far.
	a.events = a.events[:0]
	a.epoch++
	if reopen {
		a.dropPromises()
	}
	// The result is read leniently: session_open had none before 1.3's
	// promises, and a result that is not one promises nothing.
	var res msgpack.RawMessage
	skipped := a.skipped
	code, err := a.send(abi.HookSessionOpen, req, &res)
	if err != nil && held != nil && code == abi.DecodeFailed && !skipped {
		// The guest could not apply the delta (it lost its earlier view, or
		// disagrees about it): send the whole view instead. The refusal of
		// the delta does not skip an ignorable plugin; the whole view's
		// answer decides.
		a.skipped = false
		a.failed(abi.HookSessionOpen, err)
		req, next, full, delta, kept = ev.openArgs(nil, args, undoes, keeps)
		_, err = a.send(abi.HookSessionOpen, req, &res)
	}
	if err != nil {
		return err
	}
	promises := openPromises(res)
	a.scoresLocal, a.preByShape = promises.NodeLocalScores, promises.PrePredicateByShape
	a.scoresRuleless = promises.NodeLocalScores && promises.ScoreShapeWithoutRules
	a.localWithdrawn = promises.NodeLocalWithdrawn
	a.classes = nil
	// Classes refine a NodeLocal module's promise: forget drops what is
	// kept under them only for such a module, since a bind changes no
	// node's generation.
	if a.localWithdrawn && a.mod.descriptor.NodeLocal && len(promises.NodeLocalClasses) == len(a.handles.taskList) {
		a.classes = promises.NodeLocalClasses
	}
	ViewObjectsSent.WithLabelValues(a.name, "full").Add(float64(full))
	ViewObjectsSent.WithLabelValues(a.name, "delta").Add(float64(delta))
	ViewObjectsSent.WithLabelValues(a.name, "unchanged").Add(float64(kept))
	if a.lease.in != nil {
		a.lease.in.held = next
	}
	a.lease.Renew()
	return nil
}

func (a *adapter) OnSessionClose(*framework.Session) {
	defer func() {
		if a.lease != nil {
			a.lease.Release()
			a.lease = nil
		}
		a.ssn = nil
		if a.claims != nil {
			a.claims.OnSessionClose()
		}
	}()
	if a.refused != nil {
		return // the module holds no session to close; its refusal is logged
	}
	var res abi.CloseResult
	if err := a.call(abi.HookSessionClose, a.closeArgs(), &res); err != nil {
		a.failed(abi.HookSessionClose, err)
		return
	}
	for _, c := range res.Conditions {
		if c.Job < 0 || int(c.Job) >= len(a.ssn.JobList) {
			a.failed(abi.HookSessionClose, fmt.Errorf("plugin %s: condition for job handle %d of %d", a.name, c.Job, len(a.ssn.JobList)))
			continue
		}
		a.ssn.UpdatePodGroupCondition(a.ssn.JobList[c.Job], a.ssn.NewCondition(
			v1beta1.PodGroupConditionType(c.Type), v1.ConditionStatus(c.Status), c.Reason, c.Message))
	}
}

// closeArgs are session_close's arguments: to a module of minor 6 or
// later, the session's fit errors, when it has any; nil otherwise, as
// modules of earlier minors are sent.
func (a *adapter) closeArgs() any {
	if a.mod.version.Minor < 6 {
		return nil
	}
	var fes []abi.TaskFitError
	for _, j := range a.ssn.JobList {
		for id, fe := range j.NodesFitErrors {
			if h, ok := a.handles.tasks[id]; ok && fe != nil {
				fes = append(fes, abi.TaskFitError{Task: h, Message: fe.Error()})
			}
		}
	}
	if len(fes) == 0 {
		return nil
	}
	slices.SortFunc(fes, func(x, y abi.TaskFitError) int { return cmp.Compare(x.Task, y.Task) })
	return abi.CloseArgs{FitErrors: fes}
}

// dropPromises forgets the promises of the last session_open and the
// answers kept under them, keeping their storage for the next session.
func (a *adapter) dropPromises() {
	a.scoresLocal, a.preByShape, a.localWithdrawn, a.scoresRuleless = false, false, false, false
	a.classes = nil
	clear(a.keptScores)
	clear(a.keptPre)
	// No lock, as for kept in open: a reopen runs under the predicate
	// cache's lock when a predicate made it, and a session's open runs
	// before any predicate.
	a.keptClass.reset()
}

// openPromises decodes a session_open result; anything but a map of
// promises (nil, from a module that makes none) promises nothing.
func openPromises(raw msgpack.RawMessage) abi.OpenResult {
	var res abi.OpenResult
	if len(raw) > 0 && (checkGuestMsgpack(raw) != nil || msgpack.Unmarshal(raw, &res) != nil) {
		return abi.OpenResult{}
	}
	return res
}

// maxReopens bounds how often a session is reopened after failures: a module
// that fails on every call costs a few view transfers, not one per call.
const maxReopens = 3

// call sends one request with the events gathered since the last one. When
// the instance holding the session's view was destroyed by an earlier
// failure, it first reopens the session on a fresh instance.
func (a *adapter) call(hook abi.Hook, args any, out any) error {
	if err := a.ready(); err != nil {
		return err
	}
	_, err := a.send(hook, args, out)
	return err
}

// ready reopens the session on a fresh instance when an earlier failure
// destroyed the one holding its view, and fails when the plugin can no
// longer be called this session.
func (a *adapter) ready() error {
	if a.skipped {
		return fmt.Errorf("plugin %s is skipped for the rest of the session after a failure", a.name)
	}
	if a.refused != nil {
		return fmt.Errorf("plugin %s refused this session at its opening: %w", a.name, a.refused)
	}
	if a.lease == nil {
		return fmt.Errorf("plugin %s has no instance this session", a.name)
	}
	if a.lease.Lost() {
		if a.reopens >= maxReopens {
			return fmt.Errorf("plugin %s failed %d times this session; it is not called again until the next", a.name, a.reopens+1)
		}
		a.reopens++
		if err := a.open(true); err != nil {
			return fmt.Errorf("reopening the session after a failure: %w", err)
		}
	}
	return nil
}

func (a *adapter) send(hook abi.Hook, args any, out any) (abi.Code, error) {
	req := abi.Request{Events: a.events, Args: args}
	code, msg, err := a.lease.Call(context.Background(), hook, req, out)
	a.events = a.events[:0]
	if err == nil && code != abi.OK {
		err = fmt.Errorf("plugin %s, hook %s: status %d: %s", a.name, hook, code, msg)
	}
	if err != nil && a.policy.Ignorable {
		a.skipped = true
	}
	return code, err
}

// failed logs a failed call, once per hook and session.
func (a *adapter) failed(hook abi.Hook, err error) {
	if a.reported[hook] {
		return
	}
	a.reported[hook] = true
	if a.policy.Ignorable {
		klog.ErrorS(err, "Ignorable Wasm plugin failed; skipped for the rest of the session", "plugin", a.name, "hook", hook.String())
		return
	}
	klog.ErrorS(err, "Wasm plugin call failed; the decision it guards fails safe", "plugin", a.name, "hook", hook.String())
}

// BatchNodeOrder asks the module to score the nodes in one call and adds
// its scores. In a session whose module promised node-local scores, the
// nodes with a score kept for the task's shape are left out of the call,
// and the scores it gets are kept. A failed call adds nothing, kept
// scores included.
func (a *adapter) BatchNodeOrder(task *api.TaskInfo, nodes []*api.NodeInfo, totals []float64) error {
	if a.claims != nil && a.claims.Scores() {
		// The volume binding score is the host's, whatever the module.
		if err := a.claims.BatchNodeOrder(task, nodes, totals); err != nil {
			return err
		}
	}
	if a.skipped || !a.mod.Implements(abi.HookNodeOrderBatch) {
		return nil
	}
	t, ok := a.handles.tasks[task.UID]
	if !ok {
		return fmt.Errorf("plugin %s: task %s is not in the session view", a.name, task.Key())
	}
	// Reopened first, so that the promise read below is the one of the
	// instance that will answer.
	if err := a.ready(); err != nil {
		return a.scoringFailed(err)
	}
	shape, keep := a.shapeOf(t)
	keep = keep && a.scoresLocal
	if keep && a.scoresRuleless {
		shape, keep = a.ruleShapeOf(t)
	}
	if keep {
		a.keptScores = sized(a.keptScores, len(a.ssn.NodeList))
	}
	a.nodes = a.nodes[:0]
	for _, n := range nodes {
		h, ok := a.nodeHandle(n)
		if !ok {
			return fmt.Errorf("plugin %s: node %s is not in the session view", a.name, n.Name)
		}
		if !keep || !a.keptScores[h].holds(shape, n.Generation) {
			a.nodes = append(a.nodes, h)
		}
	}
	a.scores = a.scores[:0]
	if len(a.nodes) > 0 {
		args := abi.BatchArgs{Task: t, Nodes: a.nodes}
		if task.JobAllocatedHyperNode != "" && a.mod.version.Minor >= 9 {
			args.JobHyperNode = a.handles.hyperNodeHandle(task.JobAllocatedHyperNode)
		}
		if err := a.call(abi.HookNodeOrderBatch, args, &a.scores); err != nil {
			return a.scoringFailed(err)
		}
		if len(a.scores) != len(a.nodes) {
			return a.scoringFailed(a.unusable(abi.HookNodeOrderBatch, fmt.Sprintf("%d scores for %d nodes", len(a.scores), len(a.nodes))))
		}
	}
	if !keep { // every node was asked, in order
		for i, s := range a.scores {
			totals[i] += s
		}
		return nil
	}
	for j, h := range a.nodes {
		a.keptScores[h] = kept[float64]{shape: shape, generation: a.ssn.NodeList[h].Generation, answer: a.scores[j], valid: true}
	}
	for i, n := range nodes {
		totals[i] += a.keptScores[n.Index].answer
	}
	return nil
}

// unusable handles a reply that decoded but cannot be used: a failed
// call, counted, its instance discarded, and an ignorable plugin skipped
// for the rest of the session.
func (a *adapter) unusable(hook abi.Hook, problem string) error {
	err := a.mod.badReply(hook, problem)
	a.lease.Discard()
	if a.policy.Ignorable {
		a.skipped = true
	}
	return err
}

// scoringFailed reports a failed node_order_batch: an ignorable plugin then
// scores nothing.
func (a *adapter) scoringFailed(err error) error {
	a.failed(abi.HookNodeOrderBatch, err)
	if a.policy.Ignorable {
		return nil
	}
	return err
}

// OnAllocate and OnDeallocate queue events; they ride on the next call.
// With claim checks, OnAllocate and TryAllocate also reserve the task's
// volumes and devices, and OnDeallocate releases them.
// A module that declares allocate (1.12) is asked about the placement at
// once.
func (a *adapter) OnAllocate(task *api.TaskInfo) {
	if a.claims != nil {
		a.claims.ReserveOrLog(task)
	}
	a.allocateEvent(task)
	if err := a.askAllocate(task); err != nil {
		// Backfill's placement or an eviction undone: nothing undoes it.
		klog.ErrorS(err, "A placement the session cannot undo stands", "plugin", a.name, "pod", task.Key())
	}
}

// TryAllocate refuses a placement whose volumes or devices no longer fit
// its node, or that the module's allocate refuses.
func (a *adapter) TryAllocate(task *api.TaskInfo) error {
	var err error
	if a.claims != nil {
		// On a refusal the session undoes the placement at once, with an
		// OnDeallocate that releases what was reserved.
		err = a.claims.Reserve(task)
	}
	a.allocateEvent(task)
	if err != nil {
		return err
	}
	return a.askAllocate(task)
}

func (a *adapter) allocateEvent(task *api.TaskInfo) {
	kind := int32(abi.EventAllocate)
	switch task.Status {
	case api.Pipelined:
		kind = abi.EventPipeline
	case api.Running, api.Bound, api.Binding:
		kind = abi.EventUnevict
	}
	a.event(kind, task)
}

func (a *adapter) OnDeallocate(task *api.TaskInfo) {
	if a.claims != nil {
		a.claims.Release(task)
	}
	a.dropBindAnnotations(task)
	kind := int32(abi.EventDeallocate)
	if task.Status == api.Releasing {
		kind = abi.EventEvict
	}
	a.event(kind, task)
}

// nodeHandle returns a node's handle: its position in the session's node
// list (NodeInfo.Index), which is how newHandles numbers nodes.
func (a *adapter) nodeHandle(n *api.NodeInfo) (int32, bool) {
	if a.ssn == nil || n.Index < 0 || n.Index >= len(a.ssn.NodeList) || a.ssn.NodeList[n.Index] != n {
		return 0, false
	}
	return int32(n.Index), true
}

// OnDispatch tells a 1.1 module that a committed task is being bound.
func (a *adapter) OnDispatch(task *api.TaskInfo) {
	if a.mod.version.Minor < 1 {
		return
	}
	a.event(abi.EventBind, task)
}

// JobEnqueued tells the guest that the job was admitted; it rides on the
// next call like placement events.
func (a *adapter) JobEnqueued(job *api.JobInfo) {
	// A 1.0 module does not know this event (and fails on it).
	if a.mod.version.Minor < 1 {
		return
	}
	if j, ok := a.handles.jobs[job.UID]; ok {
		a.lease.held().mark(listJobs, j)
		a.events = append(a.events, abi.Event{abi.EventEnqueue, j, -1})
		a.epoch++
		a.touchJob(j)
	}
}

func (a *adapter) event(kind int32, task *api.TaskInfo) {
	t, ok := a.handles.tasks[task.UID]
	if !ok {
		return
	}
	node := a.handles.nodeHandle(task.NodeName)
	if kind == abi.EventDeallocate {
		// The handlers hear a deallocation while the task still names the
		// node it leaves; the event carries no node (docs/abi.md), the
		// guest knowing where the task was.
		node = -1
	}
	// The guest changes the task and both the node it leaves and the node it
	// goes to: resend them at the next session.
	hv := a.lease.held()
	hv.mark(listTasks, t)
	hv.mark(listNodes, node)
	hv.mark(listNodes, a.taskNode[t])
	a.forget(node, a.taskNode[t])
	if kind == abi.EventDeallocate {
		a.taskNode[t] = -1
	} else {
		a.taskNode[t] = node
	}
	a.events = append(a.events, abi.Event{kind, t, node})
	a.epoch++
	a.touched.tasks[t] = a.epoch
	a.touchJob(a.handles.taskJob[t])
}

// touchJob records that an event changed the job, hence its queue.
func (a *adapter) touchJob(j int32) {
	a.touched.jobs[j] = a.epoch
	if q := a.handles.jobQueue[j]; q >= 0 {
		a.touched.queues[q] = a.epoch
	}
}

// Predicate answers for one node from predicate_batch calls over windows
// of nodes in handle order, which is the order the scheduler's search
// walks them: the first node asked about since the last event starts a
// window, and the search then finds the following nodes answered. A failed
// call fails safe (no node passes) unless the plugin is ignorable, in which
// case it stops filtering for the session.
func (a *adapter) Predicate(task *api.TaskInfo, node *api.NodeInfo) *framework.Status {
	c := &a.verdicts
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.valid || c.task != task.UID || c.epoch != a.epoch {
		c.reset(task.UID, a.epoch, len(a.handles.allNodes))
		if a.claims != nil && a.claims.HasChecks(task) {
			// The checks read what other placements took: none of the
			// task's verdicts is node-local.
			c.claimed = true
		} else if t, ok := a.handles.tasks[task.UID]; ok {
			a.servedLocally(c, t)
		}
	}
	if a.skipped {
		if c.claimed {
			return a.claimsAlone(task, node)
		}
		return nil
	}
	if c.err != nil {
		return framework.NewStatus(framework.Error, c.err.Error())
	}
	h, ok := a.nodeHandle(node)
	if !ok || int(h) >= len(c.known) {
		return framework.NewStatus(framework.Error, fmt.Sprintf("plugin %s: node %s is not in the session view", a.name, node.Name))
	}
	if !c.known[h] && !(c.local && a.recall(c, h)) {
		if c.err = a.predicateWindow(task, h); c.err != nil {
			if a.skipped {
				c.err = nil
				if c.claimed {
					return a.claimsAlone(task, node)
				}
				return nil
			}
			return framework.NewStatus(framework.Error, c.err.Error())
		}
	}
	if v := c.verdicts[h]; v.Code != abi.OK {
		return c.status(v, a.name)
	}
	return nil
}

// sharedStatuses is how many failed verdicts' statuses a predicate cache
// shares: a search rejects thousands of nodes per task for a handful of
// reasons, and a status per rejected node was most of what a Wasm
// predicate allocated in the host.
const sharedStatuses = 16

// status returns the framework's status of a failed verdict. Statuses
// are shared, read-only: they name the plugin already, so the framework
// copies rather than writes them. Callers hold the cache's lock.
func (c *predicateCache) status(v abi.Verdict, plugin string) *framework.Status {
	for _, s := range c.statuses {
		if s.Code == framework.Code(v.Code) && s.Reasons[0] == v.Reason {
			return s
		}
	}
	s := &framework.Status{Code: framework.Code(v.Code), Reasons: []string{v.Reason}, Plugin: plugin}
	if len(c.statuses) < sharedStatuses {
		c.statuses = append(c.statuses, s)
	}
	return s
}

func (c *predicateCache) reset(task api.TaskID, epoch, nodes int) {
	c.task, c.epoch, c.valid, c.shape, c.local, c.store, c.claimed = task, epoch, true, 0, false, nil, false
	c.rules, c.ruleShape = nil, 0
	c.err, c.asked = nil, 0
	if cap(c.known) < nodes {
		c.known = make([]bool, nodes)
		c.verdicts = make([]abi.Verdict, nodes)
	}
	c.known, c.verdicts = c.known[:nodes], c.verdicts[:nodes]
	clear(c.known)
}

// predicateWindow asks the module about the nodes from handle first on,
// wrapping around, that have no verdict yet this task-epoch.
func (a *adapter) predicateWindow(task *api.TaskInfo, first int32) error {
	t, ok := a.handles.tasks[task.UID]
	if !ok {
		return fmt.Errorf("plugin %s: task %s is not in the session view", a.name, task.Key())
	}
	c := &a.verdicts
	size := max(firstPredicateWindow, c.asked)
	n := int32(len(c.known))
	c.window = c.window[:0]
	// A NodeLocal module is asked about the unknown nodes among the next
	// size positions only: most of them have kept verdicts, and reaching
	// past them would ask about nodes the search may never walk to.
	positions := n
	if c.local {
		positions = min(n, int32(size))
	}
	for i := int32(0); i < positions && len(c.window) < size; i++ {
		h := (first + i) % n
		if !c.known[h] && !(c.local && a.recall(c, h)) {
			c.window = append(c.window, h)
		}
	}
	c.asked += len(c.window)
	c.got = c.got[:0]
	trial := a.ssn.InVictimTrial() && a.inTrials
	args := abi.BatchArgs{Task: t, Nodes: c.window, Trial: trial}
	if c.claimed {
		args.Claims = a.claimsOn(task, c)
	}
	if err := a.call(abi.HookPredicateBatch, args, &c.got); err != nil {
		a.failed(abi.HookPredicateBatch, err)
		return err
	}
	if len(c.got) != len(c.window) {
		err := a.unusable(abi.HookPredicateBatch, fmt.Sprintf("%d verdicts for %d nodes", len(c.got), len(c.window)))
		a.failed(abi.HookPredicateBatch, err)
		return err
	}
	for i, h := range c.window {
		c.verdicts[h], c.known[h] = c.got[i], true
	}
	// A reopen within the call (a lost instance) started another epoch on
	// a fresh instance: what it answered is not kept under this one's
	// promise.
	if c.local && c.epoch == a.epoch {
		a.keep(c)
	}
	return nil
}
