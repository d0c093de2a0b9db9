package api

import (
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
)

// NodeInfo is a node and the resources its tasks hold.
//
//	Allocatable = Idle + Used            (Used includes Releasing)
//	FutureIdle  = Idle + Releasing - Pipelined
type NodeInfo struct {
	Name string
	Node *v1.Node

	// Allocatable is the node's, less External.
	Allocatable *Resource
	Capability  *Resource
	// External is what resource managers outside Kubernetes hold on the
	// node (ExternalReservation); nil when nothing.
	External *Resource
	Idle     *Resource
	Used     *Resource
	// Releasing is held by tasks being deleted; Pipelined is promised to tasks
	// waiting for it.
	Releasing *Resource
	Pipelined *Resource
	// Usage is the node's measured load (SetUsage): filled by the cache
	// from the configuration's metrics source, or in the simulator from a
	// node annotation; nil when nothing was measured.
	Usage *NodeUsage

	Tasks map[TaskID]*TaskInfo
	// accounted remembers the status under which each task's resources were
	// counted. A task object may be shared with its job and change status
	// before the node hears of it; removing it must undo what was counted,
	// not what the task says now.
	accounted map[TaskID]TaskStatus
	// Ready is false for a node that is not Ready or whose tasks exceed its
	// allocatable (the cache is behind the API server); sessions skip it.
	Ready bool

	// Index is the node's position in its session's node list, set when the
	// session opens, so that per-node tables can be slices instead of maps.
	// Users check that the list holds this very node at that position.
	Index int
	// Generation changes whenever the node's resources or tasks change;
	// answers computed from the node stay valid while it is unchanged. It
	// is drawn from one counter for the whole process, so two nodes with
	// the same non-zero Generation are one state of one node (a clone
	// keeps it): a memo may key on it alone, across caches and sessions.
	Generation uint64
	// mirror, when set, receives every new Generation (TrackGenerations).
	mirror *uint64

	// Numa is the node's NUMA topology and the CPUs free for exclusive
	// use, as the scheduler counts them (the cache keeps what sessions
	// assigned until the node's agent reports again); nil when no
	// Numatopology names the node. Shared, never changed: SetNuma
	// replaces it.
	Numa *NumaInfo
}

// generations numbers node states across the process.
var generations atomic.Uint64

// changed gives the node a Generation no node state has had.
func (n *NodeInfo) changed() {
	n.Generation = generations.Add(1)
	if n.mirror != nil {
		*n.mirror = n.Generation
	}
}

// TrackGenerations returns the nodes' Generations in one array, position
// by position, and keeps it current as the nodes change until
// UntrackGenerations. A walk over many nodes reads that array to tell
// which changed since it last looked, without reading the nodes. A node
// can feed one array at a time: when one of the nodes already feeds
// another (two sessions open on the same node objects), nil is returned
// and nothing is tracked, and callers read the nodes themselves.
func TrackGenerations(nodes []*NodeInfo) []uint64 {
	for _, n := range nodes {
		if n.mirror != nil {
			return nil
		}
	}
	gens := make([]uint64, len(nodes))
	for i, n := range nodes {
		gens[i] = n.Generation
		n.mirror = &gens[i]
	}
	return gens
}

// UntrackGenerations stops what TrackGenerations started for gens.
func UntrackGenerations(nodes []*NodeInfo, gens []uint64) {
	for i, n := range nodes {
		if i < len(gens) && n.mirror == &gens[i] {
			n.mirror = nil
		}
	}
}

// NewNodeInfo builds a node with no tasks.
func NewNodeInfo(node *v1.Node) *NodeInfo {
	n := &NodeInfo{
		Releasing: EmptyResource(),
		Pipelined: EmptyResource(),
		Used:      EmptyResource(),
		Tasks:     map[TaskID]*TaskInfo{},
		accounted: map[TaskID]TaskStatus{},
	}
	n.SetNode(node)
	return n
}

// SetNode replaces the node object and recomputes idle resources from it.
func (n *NodeInfo) SetNode(node *v1.Node) {
	n.changed()
	n.Node = node
	n.Name = node.Name
	n.Allocatable = NewResource(node.Status.Allocatable)
	if n.External != nil {
		n.Allocatable.Sub(n.External).clampAtZero()
	}
	n.Capability = NewResource(node.Status.Capacity)
	n.Idle = n.Allocatable.Clone().Sub(n.Used)
	n.refreshReady()
}

// ClearNode makes the node a placeholder again: the Node object is gone but
// the tasks on it are kept, to count again if it comes back.
func (n *NodeInfo) ClearNode() {
	n.changed()
	n.Node = nil
	n.refreshReady()
}

// SetExternal records what is held on the node outside Kubernetes (nil:
// nothing) and takes it off the allocatable.
func (n *NodeInfo) SetExternal(r *Resource) {
	n.External = r
	if n.Node != nil {
		n.SetNode(n.Node)
	} else {
		n.changed()
	}
}

// SetNuma replaces the node's NUMA information (nil: none); the node
// changes only if it is another one.
func (n *NodeInfo) SetNuma(info *NumaInfo) {
	if n.Numa != info {
		n.Numa = info
		n.changed()
	}
}

// refreshReady recomputes Ready after the node or its tasks changed, so that
// the answer does not depend on whether the node or its pods arrived first.
func (n *NodeInfo) refreshReady() {
	n.Ready = n.Node != nil && nodeReady(n.Node) && n.Used.LessEqual(n.Allocatable, Zero)
}

func nodeReady(node *v1.Node) bool {
	for _, c := range node.Status.Conditions {
		if c.Type == v1.NodeReady {
			return c.Status == v1.ConditionTrue
		}
	}
	// A node that reports no Ready condition at all (a bare manifest) is taken
	// at its word: the simulator's nodes need not carry conditions.
	return true
}

// FutureIdle is what will be free once releasing tasks are gone and pipelined
// tasks have taken their share.
func (n *NodeInfo) FutureIdle() *Resource {
	return n.Idle.Clone().Add(n.Releasing).Sub(n.Pipelined)
}

// AddTask accounts for a task placed on this node. The task is stored as
// given; callers pass a copy if the original must stay untouched. A task
// already on the node is re-accounted.
func (n *NodeInfo) AddTask(t *TaskInfo) {
	n.changed()
	if _, ok := n.accounted[t.UID]; ok {
		n.RemoveTask(t)
	}
	switch t.Status {
	case Pipelined:
		n.Pipelined.Add(t.Resreq)
	case Releasing:
		n.Idle.Sub(t.Resreq)
		n.Releasing.Add(t.Resreq)
		n.Used.Add(t.Resreq)
	default:
		n.Idle.Sub(t.Resreq)
		n.Used.Add(t.Resreq)
	}
	n.Tasks[t.UID] = t
	n.accounted[t.UID] = t.Status
	n.refreshReady()
}

// RemoveTask undoes AddTask for the task with this ID.
func (n *NodeInfo) RemoveTask(t *TaskInfo) {
	cur, ok := n.Tasks[t.UID]
	if !ok {
		return
	}
	n.changed()
	switch n.accounted[t.UID] {
	case Pipelined:
		n.Pipelined.Sub(cur.Resreq)
	case Releasing:
		n.Idle.Add(cur.Resreq)
		n.Releasing.Sub(cur.Resreq)
		n.Used.Sub(cur.Resreq)
	default:
		n.Idle.Add(cur.Resreq)
		n.Used.Sub(cur.Resreq)
	}
	delete(n.Tasks, t.UID)
	delete(n.accounted, t.UID)
	n.refreshReady()
}

// UpdateTask re-accounts a task whose status changed.
func (n *NodeInfo) UpdateTask(t *TaskInfo) {
	n.RemoveTask(t)
	n.AddTask(t)
}

// Clone copies the node's accounting; the node object is shared. Each task
// record is passed through task, so that a snapshot can make the node and the
// job hold the very same copy of a task.
func (n *NodeInfo) Clone(task func(*TaskInfo) *TaskInfo) *NodeInfo {
	c := &NodeInfo{
		Name:        n.Name,
		Node:        n.Node,
		Allocatable: n.Allocatable,
		Capability:  n.Capability,
		External:    n.External,
		Idle:        n.Idle.Clone(),
		Used:        n.Used.Clone(),
		Releasing:   n.Releasing.Clone(),
		Pipelined:   n.Pipelined.Clone(),
		Usage:       n.Usage,
		Tasks:       make(map[TaskID]*TaskInfo, len(n.Tasks)),
		accounted:   make(map[TaskID]TaskStatus, len(n.accounted)),
		Ready:       n.Ready,
		Index:       n.Index,
		Generation:  n.Generation,
		Numa:        n.Numa,
	}
	for id, t := range n.Tasks {
		c.Tasks[id] = task(t)
		c.accounted[id] = n.accounted[id]
	}
	return c
}

// NewPlaceholderNode stands for a node that pods name before the node object
// itself has been seen; it is not Ready, so sessions skip it.
func NewPlaceholderNode(name string) *NodeInfo {
	return &NodeInfo{
		Name:        name,
		Allocatable: EmptyResource(),
		Capability:  EmptyResource(),
		Idle:        EmptyResource(),
		Used:        EmptyResource(),
		Releasing:   EmptyResource(),
		Pipelined:   EmptyResource(),
		Tasks:       map[TaskID]*TaskInfo{},
		accounted:   map[TaskID]TaskStatus{},
	}
}

// PodCount is the number of tasks on the node.
func (n *NodeInfo) PodCount() int { return len(n.Tasks) }
