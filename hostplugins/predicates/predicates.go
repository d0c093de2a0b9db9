package predicates

import (
	"fmt"
	"sync"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/internal/logonce"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/claims"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
	"github.com/caldera-scheduler/caldera/scheduler/podrules"
)

// Name is the plugin's name in the scheduler configuration.
const Name = "predicates"

// Argument keys, as Volcano names them.
const (
	NodeAffinityEnableKey              = "predicate.NodeAffinityEnable"
	NodePortsEnableKey                 = "predicate.NodePortsEnable"
	TaintTolerationEnableKey           = "predicate.TaintTolerationEnable"
	PodAffinityEnableKey               = "predicate.PodAffinityEnable"
	NodeVolumeLimitsEnableKey          = claims.NodeVolumeLimitsEnableKey
	VolumeZoneEnableKey                = claims.VolumeZoneEnableKey
	PodTopologySpreadEnableKey         = "predicate.PodTopologySpreadEnable"
	VolumeBindingEnableKey             = claims.VolumeBindingEnableKey
	DynamicResourceAllocationEnableKey = claims.DynamicResourceAllocationEnableKey
	CacheEnableKey                     = "predicate.CacheEnable"
)

// Reasons, as kube-scheduler and Volcano word them.
const (
	ReasonUnschedulable     = "node(s) were unschedulable"
	ReasonNodeAffinity      = "node(s) didn't match Pod's node affinity/selector"
	ReasonPodNumberExceeded = "node(s) pod number exceeded"
	ReasonNodePorts         = "node(s) didn't have free ports for the requested pod ports"
	ReasonAffinityConflict  = "plugin NodeAffinity pre-predicates failed pod affinity terms conflict"
	insufficientPrefix      = "Insufficient "
)

// Args are the plugin's arguments: each flag but Cache turns a filter on or
// off; Cache is read so that a value of the wrong type is reported.
type Args struct {
	NodeAffinity    bool
	NodePorts       bool
	TaintToleration bool

	PodAffinity               bool
	NodeVolumeLimits          bool
	VolumeZone                bool
	PodTopologySpread         bool
	VolumeBinding             bool
	DynamicResourceAllocation bool
	Cache                     bool
}

// ParseArgs reads the arguments with Volcano's defaults.
func ParseArgs(args framework.Arguments) (Args, error) {
	a := Args{
		NodeAffinity: true, NodePorts: true, TaintToleration: true,
		PodAffinity: true, NodeVolumeLimits: true, VolumeZone: true,
		PodTopologySpread: true, VolumeBinding: true, DynamicResourceAllocation: true,
	}
	for _, b := range []struct {
		key string
		dst *bool
	}{
		{NodeAffinityEnableKey, &a.NodeAffinity},
		{NodePortsEnableKey, &a.NodePorts},
		{TaintTolerationEnableKey, &a.TaintToleration},
		{PodAffinityEnableKey, &a.PodAffinity},
		{NodeVolumeLimitsEnableKey, &a.NodeVolumeLimits},
		{VolumeZoneEnableKey, &a.VolumeZone},
		{PodTopologySpreadEnableKey, &a.PodTopologySpread},
		{VolumeBindingEnableKey, &a.VolumeBinding},
		{DynamicResourceAllocationEnableKey, &a.DynamicResourceAllocation},
		{CacheEnableKey, &a.Cache},
	} {
		if err := args.Bool(b.key, b.dst); err != nil {
			return a, err
		}
	}
	return a, nil
}

// Plugin is the predicates plugin for one session.
//
// Everything built in OnSessionOpen is read-only afterwards, so Predicate may
// run on many goroutines at once; only the lazily filled verdict slots are
// written, atomically, and any writer stores the same value.
type Plugin struct {
	args Args

	nodes       []*nodeState
	nodeByInfo  map[*api.NodeInfo]*nodeState
	nodeByName  map[string]*nodeState
	podEntries  map[*v1.Pod]*podEntry
	tplByKey    map[string]*template
	lateMu      sync.Mutex
	latePods    map[*v1.Pod]*podEntry
	lateKeys    map[string]*template
	evictedHere map[api.TaskID]*nodeState

	// fit gives the session's shared resource-fit answers for a request.
	fit func(*api.Resource) *api.Fit
	// last remembers the most recent task's entry: the actions ask about one
	// task on hundreds of nodes in a row.
	last atomic.Pointer[lastEntry]
	// rules holds the inter-pod affinity and topology spread states; nil
	// when no pod of the session has such rules or both are disabled.
	rules *podRules
	// ssn is the open session; trialBlind says its tier entry enables
	// neither the preemptable nor the allocatable hook, so that, as in
	// Volcano, a preemption dry run's victims still count for inter-pod
	// affinity and topology spread until the next PrePredicate.
	ssn        *framework.Session
	trialBlind bool

	// Claims are the volume and device checks, run between the others;
	// the plugin also serves their score and reservations through it.
	*claims.Claims
}

type lastEntry struct {
	pod   *v1.Pod
	entry *podEntry
}

var (
	_ framework.Plugin          = &Plugin{}
	_ framework.PrePredicater   = &Plugin{}
	_ framework.Predicater      = &Plugin{}
	_ framework.EventHandler    = &Plugin{}
	_ framework.AllocateRefuser = &Plugin{}
	_ framework.BatchNodeScorer = &Plugin{}
	_ framework.HookFilter      = &Plugin{}
)

// New parses the arguments; a value of the wrong type is an error naming its key.
func New(args framework.Arguments) (framework.Plugin, error) {
	a, err := ParseArgs(args)
	if err != nil {
		return nil, err
	}
	c, err := claims.New(args)
	if err != nil {
		return nil, err
	}
	warnUnread(args)
	return &Plugin{args: a, Claims: c}, nil
}

// movedKeys are keys older Volcano releases read here and v1.15 reads
// elsewhere, with where.
var movedKeys = map[string]string{
	"predicate.GPUSharingEnable":   "deviceshare.GPUSharingEnable",
	"predicate.GPUNumberEnable":    "deviceshare.GPUNumberEnable",
	"predicate.ProportionalEnable": "resource-strategy-fit's proportional",
}

// warnUnread logs, once each, the keys neither Volcano v1.15's predicates
// nor this plugin reads. They are not refused, as other plugins' unknown
// keys are, because configurations written for older Volcano releases carry
// them and Volcano loads them; they change nothing there or here.
func warnUnread(args framework.Arguments) {
	for _, key := range args.Unknown(NodeAffinityEnableKey, NodePortsEnableKey, TaintTolerationEnableKey, PodAffinityEnableKey,
		NodeVolumeLimitsEnableKey, VolumeZoneEnableKey, PodTopologySpreadEnableKey, VolumeBindingEnableKey,
		DynamicResourceAllocationEnableKey, CacheEnableKey,
		claims.VolumeBindingTimeoutKey, claims.VolumeBindingWeightKey, claims.VolumeBindingShapeKey, claims.DRAFilterTimeoutKey) {
		msg := fmt.Sprintf("argument %q is read neither by Volcano v1.15's predicates nor by Caldera; it has no effect", key)
		if to, ok := movedKeys[key]; ok {
			msg += "; Volcano v1.15 reads it as " + to
		}
		logonce.Warning(Name, msg)
	}
}

// Offers says the plugin scores nodes only when a volume binding shape is
// configured.
func (p *Plugin) Offers(h framework.Hook) bool {
	if h == framework.HookBatchNodeOrder {
		return p.Scores()
	}
	return true
}

// Name returns "predicates".
func (p *Plugin) Name() string { return Name }

// nodeState is what the filters need of one node, prepared at session open.
type nodeState struct {
	index int
	info  *api.NodeInfo
	// taintReasons holds, per entry of spec.taints, the rejection reason for a
	// NoSchedule or NoExecute taint.
	taintReasons [][]string
	// evicted counts the node's tasks evicted in this session: Volcano stops
	// counting them as the node's pods while they still hold resources.
	evicted atomic.Int32
}

func newNodeState(i int, n *api.NodeInfo) *nodeState {
	ns := &nodeState{}
	ns.init(i, n)
	return ns
}

func (ns *nodeState) init(i int, n *api.NodeInfo) {
	ns.index, ns.info = i, n
	if n.Node != nil {
		ns.taintReasons = make([][]string, len(n.Node.Spec.Taints))
		for j := range n.Node.Spec.Taints {
			t := &n.Node.Spec.Taints[j]
			if doNotSchedule(t) {
				ns.taintReasons[j] = []string{"node(s) had untolerated taint {" + t.Key + ": " + t.Value + "}"}
			}
		}
	}
}

// OnSessionOpen indexes the session's nodes and the templates of its tasks.
func (p *Plugin) OnSessionOpen(ssn *framework.Session) {
	p.nodes = make([]*nodeState, len(ssn.NodeList))
	p.nodeByInfo = make(map[*api.NodeInfo]*nodeState, len(ssn.NodeList))
	p.nodeByName = make(map[string]*nodeState, len(ssn.NodeList))
	// One allocation for all the session's nodes.
	states := make([]nodeState, len(ssn.NodeList))
	for i, n := range ssn.NodeList {
		ns := &states[i]
		ns.init(i, n)
		p.nodes[i] = ns
		p.nodeByInfo[n] = ns
		p.nodeByName[n.Name] = ns
	}
	p.podEntries = map[*v1.Pod]*podEntry{}
	p.tplByKey = map[string]*template{}
	p.latePods = map[*v1.Pod]*podEntry{}
	p.lateKeys = map[string]*template{}
	p.evictedHere = map[api.TaskID]*nodeState{}
	p.fit = ssn.Fit
	p.last.Store(nil)
	p.rules = nil
	p.ssn = ssn
	p.trialBlind = ssn.PluginOption(Name) != nil && !ssn.TakesPartInVictimTrials(Name)
	p.Claims.OnSessionOpen(ssn)
	if (p.args.PodAffinity || p.args.PodTopologySpread) && ssn.HasPodRules() {
		p.rules = newPodRules(ssn, p.args)
	}
	var keyBuf []byte
	for _, j := range ssn.JobList {
		for _, t := range j.Tasks {
			if t.Pod == nil || p.podEntries[t.Pod] != nil {
				continue
			}
			keyBuf = templateKey(keyBuf[:0], t.Pod)
			tpl := p.tplByKey[string(keyBuf)]
			if tpl == nil {
				tpl = newTemplate(t.Pod, len(p.nodes))
				p.tplByKey[string(keyBuf)] = tpl
			}
			p.podEntries[t.Pod] = &podEntry{tpl: tpl, fit: p.fit(t.InitResreq)}
		}
	}
}

// OnSessionClose drops the session's state.
func (p *Plugin) OnSessionClose(*framework.Session) {
	p.nodes, p.nodeByInfo, p.nodeByName = nil, nil, nil
	p.podEntries, p.tplByKey, p.latePods, p.lateKeys, p.evictedHere = nil, nil, nil, nil, nil
	p.fit = nil
	p.last.Store(nil)
	p.rules = nil
	p.ssn = nil
	p.Claims.OnSessionClose()
}

// podEntry is what the filters keep of one pod: its template and the
// session's fit answers for its request.
type podEntry struct {
	tpl *template
	fit *api.Fit
}

// entryOf returns a task's entry. Pods not seen at session open (none, in
// practice) are indexed under a lock.
func (p *Plugin) entryOf(task *api.TaskInfo) *podEntry {
	if l := p.last.Load(); l != nil && l.pod == task.Pod {
		return l.entry
	}
	if e := p.podEntries[task.Pod]; e != nil {
		p.last.Store(&lastEntry{pod: task.Pod, entry: e})
		return e
	}
	p.lateMu.Lock()
	defer p.lateMu.Unlock()
	if e := p.latePods[task.Pod]; e != nil {
		return e
	}
	key := string(templateKey(nil, task.Pod))
	tpl := p.tplByKey[key]
	if tpl == nil {
		if tpl = p.lateKeys[key]; tpl == nil {
			tpl = newTemplate(task.Pod, len(p.nodes))
			p.lateKeys[key] = tpl
		}
	}
	e := &podEntry{tpl: tpl, fit: p.fit(task.InitResreq)}
	p.latePods[task.Pod] = e
	return e
}

// stateOf returns the prepared state of a node; a node that is not the
// session's own gets a fresh state that is not cached.
func (p *Plugin) stateOf(n *api.NodeInfo) (*nodeState, bool) {
	if i := n.Index; i >= 0 && i < len(p.nodes) && p.nodes[i].info == n {
		return p.nodes[i], true
	}
	if ns := p.nodeByInfo[n]; ns != nil {
		return ns, true
	}
	if ns := p.nodeByName[n.Name]; ns != nil && ns.info == n {
		return ns, true
	}
	return newNodeState(-1, n), false
}

// predicateClass is what Predicate's answer depends on of a task when
// PredicateClass promises it: the pod's template and its request.
type predicateClass struct {
	tpl *template
	fit *api.Fit
}

// PredicateClass promises node-local answers for a pod without volumes or
// claims to check, in a session without inter-pod affinity or topology
// spread: what is left (taints, selectors, node affinity, ports, pod
// count, resources) reads only the template, the request and the node.
func (p *Plugin) PredicateClass(task *api.TaskInfo) (any, bool) {
	if task.Pod == nil || p.rules != nil || p.Claims.HasChecks(task) {
		return nil, false
	}
	e := p.entryOf(task)
	return predicateClass{tpl: e.tpl, fit: e.fit}, true
}

// PrePredicate rejects a pod whose required node affinity can match no node.
func (p *Plugin) PrePredicate(task *api.TaskInfo) *framework.Status {
	if task.Pod == nil {
		return nil
	}
	if p.args.NodeAffinity && p.entryOf(task).tpl.conflict {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, ReasonAffinityConflict)
	}
	if p.rules != nil {
		s := p.rules.states.Of(task.Pod)
		s.catchUp()
		if st := s.preFilter(); st != nil {
			return st
		}
	}
	return p.Claims.PrePredicate(task)
}

// Predicate runs the filters in Volcano's order.
func (p *Plugin) Predicate(task *api.TaskInfo, node *api.NodeInfo) *framework.Status {
	if task.Pod == nil {
		return nil
	}
	e := p.entryOf(task)
	tpl := e.tpl
	ns, cached := p.stateOf(node)
	var v verdict
	if cached {
		v = tpl.cachedVerdict(ns, &p.args)
	} else {
		v = tpl.evaluate(ns, &p.args)
	}
	tooMany := p.podCount(ns) >= node.Allocatable.MaxTaskNum
	if v != pass {
		reasons := ns.reasons(v)
		if tooMany {
			reasons = append([]string{ReasonPodNumberExceeded}, reasons...)
		}
		return &framework.Status{Code: framework.UnschedulableAndUnresolvable, Reasons: reasons}
	}
	if dim := e.fit.Shortfall(node); dim != "" {
		// Volcano's allocate reports the shortage alone. Its preempt and
		// reclaim check no resources here and rule a node out when a
		// filter after this one is unresolvable, so the code says so.
		code := framework.Unschedulable
		if p.rulesUnresolvable(task, node) || p.Claims.RuledOut(task, node) {
			code = framework.UnschedulableAndUnresolvable
		}
		return framework.NewStatus(code, insufficientPrefix+dim)
	}
	portsTaken := p.args.NodePorts && len(tpl.ports) > 0 && p.portsTaken(tpl.ports, node)
	// Reasons gather on the stack; a failing node's status copies them
	// (failed), and nothing may keep the slice itself, or buf moves to the
	// heap for every call: 1.8 GB over three sessions at 5,000 nodes.
	var buf [4]string
	reasons := buf[:0]
	if tooMany {
		reasons = append(reasons, ReasonPodNumberExceeded)
	}
	if portsTaken {
		reasons = append(reasons, ReasonNodePorts)
	}
	// The filters that depend on other pods and the volume and device
	// checks come after NodePorts, in Volcano's order: a claim that cannot
	// be read, inter-pod affinity, volume limits and zone, topology
	// spread, volume binding and devices. Their Unschedulable reasons add
	// up; an unresolvable one, or a check that ends, ends the node's check.
	checks := p.Claims.Check(task, node)
	var code framework.Code
	var ended bool
	if reasons, code, ended = claims.Apply(checks, claims.StageClaims, claims.StageClaims, reasons); ended {
		return failed(code, reasons)
	}
	var rs *ruleStates
	var nd *podrules.Node
	if p.rules != nil {
		if nd = p.rules.idx.NodeOf(node); nd != nil {
			rs = p.rulesFor(task)
			var unresolvable bool
			if reasons, unresolvable = rs.filterAffinity(nd, reasons); unresolvable {
				return failed(framework.UnschedulableAndUnresolvable, reasons)
			}
		}
	}
	if reasons, code, ended = claims.Apply(checks, claims.StageLimits, claims.StageZone, reasons); ended {
		return failed(code, reasons)
	}
	if rs != nil {
		var unresolvable bool
		if reasons, unresolvable = rs.filterSpread(nd, reasons); unresolvable {
			return failed(framework.UnschedulableAndUnresolvable, reasons)
		}
	}
	if reasons, code, ended = claims.Apply(checks, claims.StageBinding, claims.StageDevices, reasons); ended {
		return failed(code, reasons)
	}
	if len(reasons) > 0 {
		return failed(framework.Unschedulable, reasons)
	}
	return nil
}

// failed returns a status with a copy of reasons. A search fails
// thousands of nodes per task, nearly always for one of a few fixed
// reasons: those statuses are made once and shared (read-only; they name
// the plugin already, so the framework does not write them).
func failed(code framework.Code, reasons []string) *framework.Status {
	if len(reasons) == 1 {
		for _, st := range sharedStatuses {
			if st.Code == code && st.Reasons[0] == reasons[0] {
				return st
			}
		}
	}
	return &framework.Status{Code: code, Reasons: append([]string(nil), reasons...)}
}

var sharedStatuses = func() []*framework.Status {
	var out []*framework.Status
	for _, code := range []framework.Code{framework.Unschedulable, framework.UnschedulableAndUnresolvable} {
		for _, r := range []string{ReasonPodNumberExceeded, ReasonNodePorts,
			podrules.ReasonAffinityRulesNotMatch, podrules.ReasonAntiAffinityRulesNotMatch,
			podrules.ReasonExistingAntiAffinityNotMatched,
			podrules.ReasonSpreadConstraintsNotMatch, podrules.ReasonSpreadMissingLabel} {
			out = append(out, &framework.Status{Code: code, Reasons: []string{r}, Plugin: Name})
		}
	}
	return out
}()

// podCount is the number of pods Volcano counts on the node.
func (p *Plugin) podCount(ns *nodeState) int {
	return len(ns.info.Tasks) - int(ns.evicted.Load())
}

// OnAllocate follows placements (an unevicted task counts again) and
// reserves the task's volumes, logging what cannot be reserved: the
// placements that call it cannot be refused.
func (p *Plugin) OnAllocate(task *api.TaskInfo) {
	p.followAllocate(task)
	p.Claims.ReserveOrLog(task)
}

// TryAllocate follows the placement and reserves the task's volumes,
// refusing the placement when they no longer fit its node.
func (p *Plugin) TryAllocate(task *api.TaskInfo) error {
	p.followAllocate(task)
	return p.Claims.Reserve(task)
}

func (p *Plugin) followAllocate(task *api.TaskInfo) {
	if p.rules != nil {
		p.rules.onAllocate(task)
	}
	if ns, ok := p.evictedHere[task.UID]; ok {
		delete(p.evictedHere, task.UID)
		ns.evicted.Add(-1)
	}
}

// OnDeallocate follows evictions, which leave the task on its node as
// Releasing; an undone placement removes the task from the node itself.
func (p *Plugin) OnDeallocate(task *api.TaskInfo) {
	p.Claims.Release(task)
	if p.rules != nil {
		p.rules.onDeallocate(task)
	}
	if task.Status != api.Releasing || task.NodeName == "" {
		return
	}
	if _, seen := p.evictedHere[task.UID]; seen {
		return
	}
	if ns := p.nodeByName[task.NodeName]; ns != nil {
		p.evictedHere[task.UID] = ns
		ns.evicted.Add(1)
	}
}

// rulesUnresolvable reports whether inter-pod affinity or topology spread
// rules the node out for good.
func (p *Plugin) rulesUnresolvable(task *api.TaskInfo, node *api.NodeInfo) bool {
	if p.rules == nil {
		return false
	}
	nd := p.rules.idx.NodeOf(node)
	if nd == nil {
		return false
	}
	_, unresolvable := p.rulesFor(task).filter(nd, nil)
	return unresolvable
}

// rulesFor returns the task's rule states for a Predicate call.
func (p *Plugin) rulesFor(task *api.TaskInfo) *ruleStates {
	s := p.rules.states.Of(task.Pod)
	if p.ssn.InVictimTrial() && !p.trialBlind {
		// Volcano's dry run removes each victim from the PreFilter state
		// of a plugin that takes part in it.
		s.catchUp()
	}
	return s
}
