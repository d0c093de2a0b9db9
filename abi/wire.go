package abi

// Descriptor is what caldera_describe returns: who the module is and what
// it implements.
type Descriptor struct {
	Name      string     `msgpack:"name"`
	ABI       [2]uint16  `msgpack:"abi"`
	Hooks     []string   `msgpack:"hooks"`
	Arguments []Argument `msgpack:"arguments"`
	SDK       string     `msgpack:"sdk"`
	// StableKeys says the module's order keys do not change within a
	// session, so the host fetches each object's key once per session.
	StableKeys bool `msgpack:"stableKeys,omitempty"`
	// Deltas says the module accepts a session_open that carries only what
	// changed since the view it kept from its previous session.
	Deltas bool `msgpack:"deltas,omitempty"`
	// UndoEvents (1.3) says the module undoes, when session_close returns,
	// what the session's events changed in its view: the objects events
	// touched are back as they were sent, so the next delta needs to carry
	// only what changed in the cluster.
	UndoEvents bool `msgpack:"undoEvents,omitempty"`
	// LocalKeys says an object's order key changes only when an event
	// touches it: a task's when an event names it, a job's when an event
	// names one of its tasks or admits it, a queue's when an event touches
	// one of its jobs. The host then asks again only for those objects.
	LocalKeys bool `msgpack:"localKeys,omitempty"`
	// NodeLocal says the module's predicate_batch verdict for a task and a
	// node depends on nothing in its view but that node and the task's
	// shape: every field of the task but namespace, name, labels,
	// annotations, creationTime, status and node; pods on the node count
	// only through the node's resources, pod count and host ports. The
	// host then keeps its last verdict per node, with the shape it was
	// for, while the node is unchanged (across sessions too), and asks only about
	// nodes without a verdict for the task's shape. Absent means false; a
	// host that predates it just asks every time.
	NodeLocal bool `msgpack:"nodeLocal,omitempty"`
	// EventKinds lists the object kinds an event handler module wants
	// cache_event calls for; empty means every kind.
	EventKinds []string `msgpack:"eventKinds,omitempty"`
	// ClaimChecks (1.10) asks the host to run Volcano's volume and device
	// checks for the module: predicate_batch then carries their outcome
	// per node, and the host reserves and writes what a placement takes.
	ClaimChecks bool `msgpack:"claimChecks,omitempty"`
}

// Argument is one configuration argument a module reads.
type Argument struct {
	Name    string `msgpack:"name" json:"name"`
	Type    string `msgpack:"type" json:"type"`
	Default any    `msgpack:"default" json:"default"`
}

// Event tells the guest about a change to its view since the previous call:
// [kind, task handle, node handle].
type Event [3]int32

// Event kinds.
const (
	EventAllocate   = 1
	EventPipeline   = 2
	EventDeallocate = 3
	EventEvict      = 4
	// EventUnevict: a releasing task runs again (its eviction was undone).
	EventUnevict = 5
	// EventEnqueue: [6, job, -1], the job was admitted (its PodGroup is
	// Inqueue). It replaces a job_enqueued call.
	EventEnqueue = 6
	// EventBind: [7, task, node], a committed task is being bound (its
	// status becomes Binding).
	EventBind = 7
)

// Request is the envelope of every caldera_call request.
type Request struct {
	Events []Event `msgpack:"e,omitempty"`
	Args   any     `msgpack:"a"`
}

// Reply is the envelope of every caldera_call reply: [code, message,
// result]; Result is decoded by the caller into the hook's own type.
type Reply struct {
	_msgpack struct{} `msgpack:",as_array"`
	Code     Code
	Message  string
	Result   any
}
