package caldera

import "errors"

// Session is the view of one scheduling session and the policy's
// arguments from the scheduler configuration. The view is read-only to
// plugins: the SDK keeps it current as the scheduler places tasks, and keeps
// it across sessions so that the next session sends only what changed;
// keep your own state in your plugin's fields.
type Session struct {
	View      View
	Arguments map[string]any

	conditions []condition
	// undo records what events change, when the SDK serves the session
	// (nil in a session built by NewSession).
	undo *undoLog
	// trial is set while PredicateBatch serves a call made during a
	// preemption dry run (InVictimTrial).
	trial bool
	// jobHyperNode is set while NodeOrderBatch serves a call that named
	// the hypernode holding what the task's job placed so far
	// (JobHyperNode).
	jobHyperNode *HyperNode
	// hostABI is the scheduler's version as session_open said it.
	hostABI []int32
	// fitErrors are the fit errors session_close brought, by task handle.
	fitErrors map[int32]string
	// nodeClaims is set while PredicateBatch serves a call that brought
	// the scheduler's volume and device checks (NodeClaims).
	nodeClaims NodeClaimsList
}

// NodeClaims is the scheduler's volume and device checks on the i-th node
// of the PredicateBatch call being served, for a ClaimChecker plugin
// (ABI 1.10): nil when every check passes there, or when the task has
// nothing for them.
func (s *Session) NodeClaims(i int) *NodeClaims {
	if i < 0 || i >= len(s.nodeClaims) {
		return nil
	}
	return s.nodeClaims[i]
}

// Claims returns the task's claims (ABI 1.10), nil when it uses none.
func (s *Session) Claims(t *Task) *TaskClaims {
	return byHandle(s.View.TaskClaims, t.Handle, func(c *TaskClaims) int32 { return c.Task })
}

// VolumeLimits returns the node's CSI attach limits by driver (ABI 1.10),
// nil when its CSINode states none.
func (s *Session) VolumeLimits(n *Node) map[string]int32 {
	if l := byHandle(s.View.VolumeLimits, n.Handle, func(l *NodeVolumeLimits) int32 { return l.Node }); l != nil {
		return l.Limits
	}
	return nil
}

// byHandle finds the entry for handle h in a list in handle order
// (checkClaimHandles made sure), by binary search: a policy may ask for
// every node of a batch.
func byHandle[T any](list []T, h int32, handle func(*T) int32) *T {
	lo, hi := 0, len(list)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if handle(&list[m]) < h {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(list) && handle(&list[lo]) == h {
		return &list[lo]
	}
	return nil
}

// checkClaimHandles refuses claim lists that name a task or node the view
// does not have, or are out of handle order.
func (v *View) checkClaimHandles() error {
	last := int32(-1)
	for _, tc := range v.TaskClaims {
		if tc.Task < 0 || int(tc.Task) >= len(v.Tasks) {
			return handleError("taskClaims task", tc.Task, len(v.Tasks))
		}
		if tc.Task <= last {
			return errors.New("taskClaims: not in task handle order")
		}
		last = tc.Task
	}
	last = -1
	for _, l := range v.VolumeLimits {
		if l.Node < 0 || int(l.Node) >= len(v.Nodes) {
			return handleError("volumeLimits node", l.Node, len(v.Nodes))
		}
		if l.Node <= last {
			return errors.New("volumeLimits: not in node handle order")
		}
		last = l.Node
	}
	return nil
}

// HostABIMinor reports the minor of the ABI the scheduler speaks, as its
// session_open said, or 0 when it did not say (a scheduler of 1.4 or
// earlier, or a session made by NewSession). A plugin sends what a later
// minor added only to a scheduler that reads it.
func (s *Session) HostABIMinor() int {
	if len(s.hostABI) < 2 || s.hostABI[0] != 1 {
		return 0
	}
	return int(s.hostABI[1])
}

// ReadsDomainRules reports whether this session's PredicateDomainRules
// answers reach the scheduler: both it and this SDK speak 1.5 or later. A
// plugin that gives node-local classes on the strength of its rules (as
// podrules.RuledClasses does) must ask this, not the scheduler's minor
// alone, or it would promise classes whose rules are never sent.
func (s *Session) ReadsDomainRules() bool { return abiMinor >= 5 && s.HostABIMinor() >= 5 }

// FitError is why the session found no node for the task, as the
// scheduler words it on the pod ("0/3 nodes are unavailable: 3 Insufficient
// cpu."), or "" when it found one or did not try. It is known in
// OnSessionClose, from a scheduler of ABI 1.6 or later; a gang policy
// quotes it as Volcano's "Origin reason".
func (s *Session) FitError(t *Task) string { return s.fitErrors[t.Handle] }

// SetFitErrors gives the session the fit errors a scheduler sends when it
// closes, by task handle: for a plugin's unit tests, which build their
// sessions with NewSession.
func (s *Session) SetFitErrors(byTask map[int32]string) { s.fitErrors = byTask }

// InVictimTrial reports, during PredicateBatch, whether the call is part of
// a preemption dry run in which this plugin takes part (its configuration
// enables preemptable or allocatable; ABI 1.4). The evictions applied to
// the view since the dry run began only test whether the victims make
// room; Volcano's predicates plugin counts them in its inter-pod affinity
// and spread state then, and only then, outside PrePredicate.
func (s *Session) InVictimTrial() bool { return s.trial }

// JobHyperNode reports, during NodeOrderBatch, the lowest hypernode holding
// what the task's job has placed so far while allocate places a job with a
// network topology (ABI 1.9), nil otherwise: Volcano's network-topology-aware
// scores nodes by how close they are to it. A score that reads it is not
// node-local (NodeLocalScorer).
func (s *Session) JobHyperNode() *HyperNode { return s.jobHyperNode }

// HyperNode returns the hypernode of a handle, nil for -1 or a handle
// outside the view.
func (s *Session) HyperNode(handle int32) *HyperNode {
	if handle < 0 || int(handle) >= len(s.View.HyperNodes) {
		return nil
	}
	return &s.View.HyperNodes[handle]
}

// NewSession returns a session over a view as the SDK prepares one when it
// arrives from the scheduler: every object's Handle set and each job's
// Tasks listed. A plugin's unit tests build their sessions with it; nil
// arguments are an empty map.
func NewSession(v View, args map[string]any) *Session {
	if args == nil {
		args = map[string]any{}
	}
	s := &Session{View: v, Arguments: args}
	s.index(&taskLists{})
	return s
}

// condition is a PodGroup condition to set when the session closes.
type condition struct {
	job                           int32
	kind, status, reason, message string
}

// SetCondition asks the scheduler to set a condition on the job's PodGroup
// when the session closes, as a native plugin does from OnSessionClose
// (for example Unschedulable, "True", "NotEnoughResources", "3/4 tasks in
// gang unschedulable"). A later call for the same job and type wins.
func (s *Session) SetCondition(job *Job, kind, status, reason, message string) {
	for i := range s.conditions {
		if c := &s.conditions[i]; c.job == job.Handle && c.kind == kind {
			c.status, c.reason, c.message = status, reason, message
			return
		}
	}
	s.conditions = append(s.conditions, condition{job.Handle, kind, status, reason, message})
}

// index sets every object's Handle and each job's Tasks once the view has
// been decoded. The jobs' Tasks lists are windows of one array in l, which
// the SDK keeps for the next session: indexing then allocates nothing, where
// a list per job was a thousand allocations a session, and allocations are
// what make a TinyGo module's collector mark the whole view.
func (s *Session) index(l *taskLists) {
	v := &s.View
	for i := range v.Nodes {
		v.Nodes[i].Handle = int32(i)
	}
	for i := range v.Queues {
		v.Queues[i].Handle = int32(i)
	}
	for i := range v.HyperNodes {
		v.HyperNodes[i].Handle = int32(i)
	}
	l.counts = resize(l.counts, len(v.Jobs))
	for i := range v.Tasks {
		t := &v.Tasks[i]
		t.Handle = int32(i)
		if t.Job >= 0 && int(t.Job) < len(v.Jobs) {
			l.counts[t.Job]++
		}
	}
	l.tasks = resize(l.tasks, len(v.Tasks))
	start := 0
	for i := range v.Jobs {
		end := start + int(l.counts[i])
		v.Jobs[i].Handle = int32(i)
		// Capped at the job's own tasks: an append by the plugin copies
		// rather than overwriting the next job's.
		v.Jobs[i].Tasks = l.tasks[start:start:end]
		start = end
	}
	for i := range v.Tasks {
		t := &v.Tasks[i]
		if t.Job >= 0 && int(t.Job) < len(v.Jobs) {
			v.Jobs[t.Job].Tasks = append(v.Jobs[t.Job].Tasks, t)
		}
	}
}

// taskLists backs the jobs' Tasks lists (index).
type taskLists struct {
	counts []int32
	tasks  []*Task
}

// Node returns the node with this handle.
func (s *Session) Node(h int32) *Node { return &s.View.Nodes[h] }

// Task returns the task with this handle.
func (s *Session) Task(h int32) *Task { return &s.View.Tasks[h] }

// Job returns the job with this handle.
func (s *Session) Job(h int32) *Job { return &s.View.Jobs[h] }

// Queue returns the queue with this handle.
func (s *Session) Queue(h int32) *Queue { return &s.View.Queues[h] }

// Event kinds the scheduler forwards; see apply.
const (
	eventAllocate   = 1
	eventPipeline   = 2
	eventDeallocate = 3
	eventEvict      = 4
	eventUnevict    = 5
	eventEnqueue    = 6
	eventBind       = 7
)

// apply brings the view up to date with one placement change, accounting
// resources the way the scheduler's nodes do.
func (s *Session) apply(kind, task, node int32) error {
	if kind > lastEvent {
		if abiMinor == 0 {
			return errors.New("event kind " + itoa(kind) + " is not in ABI 1.0")
		}
		// An event of a newer minor version: nothing to apply.
		return nil
	}
	if kind == eventEnqueue {
		if task < 0 || int(task) >= len(s.View.Jobs) {
			return eventError(kind, "job", task, len(s.View.Jobs))
		}
		s.undo.job(&s.View, task)
		s.View.Jobs[task].Phase = PodGroupInqueue
		return nil
	}
	if task < 0 || int(task) >= len(s.View.Tasks) {
		return eventError(kind, "task", task, len(s.View.Tasks))
	}
	t := &s.View.Tasks[task]
	if kind != eventDeallocate && (node < 0 || int(node) >= len(s.View.Nodes)) {
		return eventError(kind, "node", node, len(s.View.Nodes))
	}
	s.undo.task(&s.View, task)
	changed := node // the node whose usage the event changes
	if kind == eventDeallocate {
		changed = t.Node
	}
	if changed >= 0 && int(changed) < len(s.View.Nodes) {
		s.undo.node(&s.View, changed)
	}
	switch kind {
	case eventAllocate:
		n := &s.View.Nodes[node]
		sub(&n.Idle, &t.Request)
		add(&n.Used, &t.Request)
		n.Pods++
		t.Status, t.Node = Allocated, node
	case eventPipeline:
		n := &s.View.Nodes[node]
		add(&n.Pipelined, &t.Request)
		t.Status, t.Node = Pipelined, node
	case eventEvict:
		n := &s.View.Nodes[node]
		add(&n.Releasing, &t.Request)
		t.Status = Releasing
	case eventBind:
		t.Status = Binding
	case eventUnevict:
		n := &s.View.Nodes[node]
		sub(&n.Releasing, &t.Request)
		t.Status = Running
	case eventDeallocate:
		if t.Node >= 0 && int(t.Node) < len(s.View.Nodes) {
			n := &s.View.Nodes[t.Node]
			switch t.Status {
			case Pipelined:
				sub(&n.Pipelined, &t.Request)
			case Allocated, Binding, Bound, Running:
				add(&n.Idle, &t.Request)
				sub(&n.Used, &t.Request)
				n.Pods--
			}
		}
		t.Status, t.Node = Pending, -1
	default:
		// An event of a newer minor version: nothing to apply.
	}
	return nil
}

func add(r, d *Resource) {
	r.MilliCPU += d.MilliCPU
	r.Memory += d.Memory
	r.Scalars.addAll(d.Scalars, 1)
}

func sub(r, d *Resource) {
	r.MilliCPU -= d.MilliCPU
	r.Memory -= d.Memory
	r.Scalars.addAll(d.Scalars, -1)
}
