package runtime

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/klog/v2"

	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/scheduler/api"
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
		return &adapter{name: name, mod: p, args: args, policy: policy}, nil
	}
}

// adapter is one session's instance of a Wasm plugin in the framework.
type adapter struct {
	name   string
	mod    *Plugin
	args   framework.Arguments
	policy Policy

	ssn     *framework.Session
	handles handles
	events  []abi.Event
	// skipped is set when an ignorable plugin failed this session.
	skipped bool
	nodes   []int32
	scores  []float64
	// allNodes holds every node handle of the session, for predicate_batch.
	allNodes []int32

	// epoch counts the events sent so far; the predicate verdicts of one
	// task are valid until the next event.
	epoch    int
	verdicts predicateCache
}

// predicateCache holds one task's verdicts on every session node, from one
// predicate_batch call.
type predicateCache struct {
	mu    sync.Mutex
	task  api.TaskID
	epoch int
	valid bool
	all   []abi.Verdict
	err   error
}

var (
	_ framework.Plugin          = &adapter{}
	_ framework.HookFilter      = &adapter{}
	_ framework.BatchNodeScorer = &adapter{}
	_ framework.EventHandler    = &adapter{}
	_ framework.Predicater      = &adapter{}
)

func (a *adapter) Name() string { return a.name }

// Offers registers only the hooks the module declared.
func (a *adapter) Offers(h framework.Hook) bool {
	switch h {
	case framework.HookBatchNodeOrder:
		return a.mod.Implements(abi.HookNodeOrderBatch)
	case framework.HookPredicate:
		return a.mod.Implements(abi.HookPredicateBatch)
	case framework.HookEventHandler:
		return true
	}
	return false
}

func (a *adapter) OnSessionOpen(ssn *framework.Session) {
	a.ssn = ssn
	view, h := buildView(ssn)
	a.handles = h
	a.allNodes = a.allNodes[:0]
	for i := range ssn.NodeList {
		a.allNodes = append(a.allNodes, int32(i))
	}
	a.events = a.events[:0]
	a.skipped = false
	args := map[string]any(a.args)
	if args == nil {
		args = map[string]any{}
	}
	if err := a.call(abi.HookSessionOpen, abi.OpenArgs{View: view, Arguments: args}, nil); err != nil {
		klog.ErrorS(err, "Wasm plugin failed to open the session", "plugin", a.name)
	}
}

func (a *adapter) OnSessionClose(*framework.Session) {
	if err := a.call(abi.HookSessionClose, nil, nil); err != nil {
		klog.ErrorS(err, "Wasm plugin failed to close the session", "plugin", a.name)
	}
	a.ssn = nil
}

// call sends one request with the events gathered since the last one.
func (a *adapter) call(hook abi.Hook, args any, out any) error {
	if a.skipped {
		return fmt.Errorf("plugin %s is skipped for the rest of the session after a failure", a.name)
	}
	req := abi.Request{Events: a.events, Args: args}
	code, msg, err := a.mod.Call(context.Background(), hook, req, out)
	a.events = a.events[:0]
	if err == nil && code != abi.OK {
		err = fmt.Errorf("plugin %s, hook %s: status %d: %s", a.name, hook, code, msg)
	}
	if err != nil && a.policy.Ignorable {
		a.skipped = true
	}
	return err
}

// BatchNodeOrder asks the module to score the nodes in one call and adds
// its scores.
func (a *adapter) BatchNodeOrder(task *api.TaskInfo, nodes []*api.NodeInfo, totals []float64) error {
	if a.skipped {
		return nil
	}
	t, ok := a.handles.tasks[task.UID]
	if !ok {
		return fmt.Errorf("plugin %s: task %s is not in the session view", a.name, task.Key())
	}
	a.nodes = a.nodes[:0]
	for _, n := range nodes {
		h, ok := a.nodeHandle(n)
		if !ok {
			return fmt.Errorf("plugin %s: node %s is not in the session view", a.name, n.Name)
		}
		a.nodes = append(a.nodes, h)
	}
	a.scores = a.scores[:0]
	if err := a.call(abi.HookNodeOrderBatch, abi.BatchArgs{Task: t, Nodes: a.nodes}, &a.scores); err != nil {
		if a.policy.Ignorable {
			klog.ErrorS(err, "Ignorable Wasm plugin failed; skipped for the rest of the session", "plugin", a.name)
			return nil
		}
		return err
	}
	if len(a.scores) != len(nodes) {
		return fmt.Errorf("plugin %s, hook %s: %d scores for %d nodes", a.name, abi.HookNodeOrderBatch, len(a.scores), len(nodes))
	}
	for i, s := range a.scores {
		totals[i] += s
	}
	return nil
}

// OnAllocate and OnDeallocate queue events; they ride on the next call.
func (a *adapter) OnAllocate(task *api.TaskInfo) {
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
	kind := int32(abi.EventDeallocate)
	if task.Status == api.Releasing {
		kind = abi.EventEvict
	}
	a.event(kind, task)
}

// nodeHandle returns a node's handle: its position in the session's node
// list (NodeInfo.Index), which is how buildView numbers nodes.
func (a *adapter) nodeHandle(n *api.NodeInfo) (int32, bool) {
	if a.ssn == nil || n.Index < 0 || n.Index >= len(a.ssn.NodeList) || a.ssn.NodeList[n.Index] != n {
		return 0, false
	}
	return int32(n.Index), true
}

func (a *adapter) event(kind int32, task *api.TaskInfo) {
	t, ok := a.handles.tasks[task.UID]
	if !ok {
		return
	}
	node := int32(-1)
	if n, ok := a.handles.nodes[task.NodeName]; ok {
		node = n
	}
	a.events = append(a.events, abi.Event{kind, t, node})
	a.epoch++
}

// Predicate answers for one node from a predicate_batch call over every
// session node, made the first time the task is asked about since the last
// event: the search for one task crosses into the module once, not once per
// node. A failed call fails safe (no node passes) unless the plugin is
// ignorable, in which case it stops filtering for the session.
func (a *adapter) Predicate(task *api.TaskInfo, node *api.NodeInfo) *framework.Status {
	c := &a.verdicts
	c.mu.Lock()
	defer c.mu.Unlock()
	if a.skipped {
		return nil
	}
	if !c.valid || c.task != task.UID || c.epoch != a.epoch {
		c.task, c.epoch, c.valid = task.UID, a.epoch, true
		c.err = a.predicateAll(task)
	}
	if c.err != nil {
		if a.skipped {
			return nil
		}
		return framework.NewStatus(framework.Error, c.err.Error())
	}
	h, ok := a.nodeHandle(node)
	if !ok || int(h) >= len(c.all) {
		return framework.NewStatus(framework.Error, fmt.Sprintf("plugin %s: node %s is not in the session view", a.name, node.Name))
	}
	if v := c.all[h]; v.Code != abi.OK {
		return framework.NewStatus(framework.Code(v.Code), v.Reason)
	}
	return nil
}

func (a *adapter) predicateAll(task *api.TaskInfo) error {
	t, ok := a.handles.tasks[task.UID]
	if !ok {
		return fmt.Errorf("plugin %s: task %s is not in the session view", a.name, task.Key())
	}
	c := &a.verdicts
	c.all = c.all[:0]
	if err := a.call(abi.HookPredicateBatch, abi.BatchArgs{Task: t, Nodes: a.allNodes}, &c.all); err != nil {
		if a.policy.Ignorable {
			klog.ErrorS(err, "Ignorable Wasm plugin failed; skipped for the rest of the session", "plugin", a.name)
		}
		return err
	}
	if len(c.all) != len(a.allNodes) {
		return fmt.Errorf("plugin %s, hook %s: %d verdicts for %d nodes", a.name, abi.HookPredicateBatch, len(c.all), len(a.allNodes))
	}
	return nil
}
