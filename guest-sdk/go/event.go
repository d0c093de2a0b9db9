package caldera

//go:generate go tool msgp -file event.go -o event_gen.go -tests=false -io=false
//go:generate sed -i -e s/msgp.ReadStringBytes(/readString(/ -e s/msgp.UnsafeString(/unsafeString(/ -e s/msgp\./wire./g -e s,github.com/tinylib/msgp/msgp,github.com/caldera-scheduler/caldera/guest-sdk/go/internal/wire, event_gen.go

// CacheEvent is one object event as an event handler sees it, before the
// scheduler's cache records it (docs/abi.md, section 8).
type CacheEvent struct {
	// Type is "add", "update" or "delete".
	Type string `msg:"type"`
	// Kind is "Pod", "Node", "PodGroup", "Queue", "PriorityClass",
	// "ExternalReservation", or a custom informer's kind.
	Kind string `msg:"kind"`
	// Old is nil for an add, New for a delete.
	Old *Object `msg:"old"`
	New *Object `msg:"new"`
	// Arguments are the handler's arguments from --event-handler-config.
	Arguments map[string]any `msg:"-"`
}

// CacheEventBatch is cache_event's request: a batch of events, oldest
// first. Handlers never see it: the SDK calls OnCacheEvent per event.
type CacheEventBatch struct {
	Events    []CacheEvent   `msg:"events"`
	Arguments map[string]any `msg:"arguments"`
}

// Object is the compact form of an object: the fields of its kind are set,
// the others are empty.
type Object struct {
	Name        string            `msg:"name"`
	Namespace   string            `msg:"namespace"`
	UID         string            `msg:"uid"`
	Labels      map[string]string `msg:"labels"`
	Annotations map[string]string `msg:"annotations"`

	// Node (and a Queue's capability as Allocatable).
	Allocatable   *Resource `msg:"allocatable"`
	Taints        []Taint   `msg:"taints"`
	Unschedulable bool      `msg:"unschedulable"`

	// Pod: what the cache counts of it, its priority, node, phase,
	// scheduler and PodGroup.
	Requests      *Resource `msg:"requests"`
	Priority      *int32    `msg:"priority"`
	NodeName      string    `msg:"nodeName"`
	Phase         string    `msg:"phase"`
	SchedulerName string    `msg:"schedulerName"`
	Group         string    `msg:"group"`

	// PodGroup.
	Queue             string `msg:"queue"`
	MinMember         int32  `msg:"minMember"`
	PriorityClassName string `msg:"priorityClassName"`

	// Queue.
	Weight int32  `msg:"weight"`
	State  string `msg:"state"`

	// PriorityClass.
	Value *int32 `msg:"value"`

	// ExternalReservation: what is held on NodeName.
	Reserved *Resource `msg:"reserved"`
}
