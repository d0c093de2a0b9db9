package abi

// The cache_event hook (docs/abi.md, section 8): a module that declares it
// is a cache event handler. It sees each object event before the
// scheduler's cache records it, and may pass it on, drop it or adjust what
// the cache records. It is called outside sessions, with no view.

// HookCacheEvent is the hook of an event handler module (ABI 1.2).
const HookCacheEvent Hook = 25

// Event types of a cache_event request.
const (
	EventAdd    = "add"
	EventUpdate = "update"
	EventDelete = "delete"
)

// Actions of a cache_event result.
const (
	ActionPass   = "pass"
	ActionDrop   = "drop"
	ActionAdjust = "adjust"
)

// CacheEventArgs is cache_event's request: events in the order they
// happened, and the handler's arguments. The result is a list of
// CacheEventResult, one per event, in the same order.
type CacheEventArgs struct {
	Events    []CacheEvent   `msgpack:"events"`
	Arguments map[string]any `msgpack:"arguments,omitempty"`
}

// CacheEvent is one event: what happened to which kind of object. Old is
// nil for an add, New for a delete.
type CacheEvent struct {
	Type string  `msgpack:"type"`
	Kind string  `msgpack:"kind"`
	Old  *Object `msgpack:"old"`
	New  *Object `msgpack:"new"`
}

// Object is the compact form of an object in a cache event: the fields its
// kind has, the others left out. Resources are in the units of the view
// (milli-CPU, bytes, scalar milli-units).
type Object struct {
	Name        string            `msgpack:"name"`
	Namespace   string            `msgpack:"namespace,omitempty"`
	UID         string            `msgpack:"uid,omitempty"`
	Labels      map[string]string `msgpack:"labels,omitempty"`
	Annotations map[string]string `msgpack:"annotations,omitempty"`

	// Node: status.allocatable, spec.taints, spec.unschedulable.
	Allocatable   *Resource `msgpack:"allocatable,omitempty"`
	Taints        []Taint   `msgpack:"taints,omitempty"`
	Unschedulable bool      `msgpack:"unschedulable,omitempty"`

	// Pod: what the cache counts of it (requests of containers, init
	// containers and overhead, as a task's), its priority, node, phase,
	// scheduler and PodGroup.
	Requests      *Resource `msgpack:"requests,omitempty"`
	Priority      *int32    `msgpack:"priority,omitempty"`
	NodeName      string    `msgpack:"nodeName,omitempty"`
	Phase         string    `msgpack:"phase,omitempty"`
	SchedulerName string    `msgpack:"schedulerName,omitempty"`
	Group         string    `msgpack:"group,omitempty"`

	// PodGroup: queue, minMember, priorityClassName (and phase above).
	Queue             string `msgpack:"queue,omitempty"`
	MinMember         int32  `msgpack:"minMember,omitempty"`
	PriorityClassName string `msgpack:"priorityClassName,omitempty"`

	// Queue: weight, state (and capability as Allocatable).
	Weight int32  `msgpack:"weight,omitempty"`
	State  string `msgpack:"state,omitempty"`

	// PriorityClass: value.
	Value *int32 `msgpack:"value,omitempty"`

	// ExternalReservation: the node it is on (nodeName above) and what it
	// holds.
	Reserved *Resource `msgpack:"reserved,omitempty"`
}

// CacheEventResult is the verdict on one event. Action "pass" (or a nil
// verdict) records the event as it came; "drop" keeps the object version
// out of the cache; "adjust" records it with every field that is present
// replacing the object's own. Nodes take allocatable, labels and taints;
// pods take requests, priority and labels.
type CacheEventResult struct {
	Action      string            `msgpack:"action"`
	Allocatable *Resource         `msgpack:"allocatable,omitempty"`
	Labels      map[string]string `msgpack:"labels,omitempty"`
	Taints      *[]Taint          `msgpack:"taints,omitempty"`
	Requests    *Resource         `msgpack:"requests,omitempty"`
	Priority    *int32            `msgpack:"priority,omitempty"`
}
