package runtime

import "github.com/caldera-scheduler/caldera/abi"

// A cache_event request is encoded by hand. The reflection-based encoder
// spent 2.6 µs and 16 allocations on a node event, against 0.25 µs and none
// (BenchmarkEventRequest; docs/performance.md). The bytes are the ones EncodeRequest
// makes of abi.Request{Args: abi.CacheEventArgs{...}} (msgpack/v5's choices:
// structs as maps in field order with omitempty fields left out, int32 and
// int64 at full width, maps with keys in order, abi.Resource's own
// EncodeMsgpack), which TestEventRequestMatchesEncodeRequest checks on
// generated events.

// encodeArguments encodes a handler's arguments once, as EncodeRequest
// would inside the request.
func encodeArguments(args map[string]any) ([]byte, error) { return marshalSorted(args) }

// appendCacheEventRequest appends the request of one cache_event call;
// arguments are the handler's arguments, already encoded (nil when none).
func appendCacheEventRequest(b []byte, events []abi.CacheEvent, arguments []byte) []byte {
	b = appendMapLen(b, 1) // "e" (session events) is empty and left out
	b = appendStr(b, "a")
	if len(arguments) > 0 {
		b = appendMapLen(b, 2)
	} else {
		b = appendMapLen(b, 1)
	}
	b = appendStr(b, "events")
	if events == nil {
		b = appendNil(b)
	} else {
		b = appendArrayLen(b, len(events))
	}
	for i := range events {
		b = appendCacheEvent(b, &events[i])
	}
	if len(arguments) > 0 {
		b = appendStr(b, "arguments")
		b = append(b, arguments...)
	}
	return b
}

func appendCacheEvent(b []byte, e *abi.CacheEvent) []byte {
	b = appendMapLen(b, 4)
	b = appendStr(b, "type")
	b = appendStr(b, e.Type)
	b = appendStr(b, "kind")
	b = appendStr(b, e.Kind)
	b = appendStr(b, "old")
	b = appendObject(b, e.Old)
	b = appendStr(b, "new")
	return appendObject(b, e.New)
}

// appendObject writes the fields of abi.Object in its declared order, each
// one only when it is not empty (they are all omitempty but name).
func appendObject(b []byte, o *abi.Object) []byte {
	if o == nil {
		return appendNil(b)
	}
	b = appendMapLen(b, objectFields(o))
	b = appendStr(b, "name")
	b = appendStr(b, o.Name)
	b = appendStrField(b, "namespace", o.Namespace)
	b = appendStrField(b, "uid", o.UID)
	b = appendStrMapField(b, "labels", o.Labels)
	b = appendStrMapField(b, "annotations", o.Annotations)
	b = appendResourceField(b, "allocatable", o.Allocatable)
	b = appendTaintsField(b, o.Taints)
	if o.Unschedulable {
		b = appendBool(appendStr(b, "unschedulable"), true)
	}
	b = appendResourceField(b, "requests", o.Requests)
	b = appendInt32PtrField(b, "priority", o.Priority)
	b = appendStrField(b, "nodeName", o.NodeName)
	b = appendStrField(b, "phase", o.Phase)
	b = appendStrField(b, "schedulerName", o.SchedulerName)
	b = appendStrField(b, "group", o.Group)
	b = appendStrField(b, "queue", o.Queue)
	if o.MinMember != 0 {
		b = appendStr(b, "minMember")
		b = appendInt32(b, o.MinMember)
	}
	b = appendStrField(b, "priorityClassName", o.PriorityClassName)
	if o.Weight != 0 {
		b = appendStr(b, "weight")
		b = appendInt32(b, o.Weight)
	}
	b = appendStrField(b, "state", o.State)
	b = appendInt32PtrField(b, "value", o.Value)
	return appendResourceField(b, "reserved", o.Reserved)
}

// objectFields counts the fields appendObject writes.
func objectFields(o *abi.Object) int {
	return 1 + countTrue( // name, then the optional ones
		o.Namespace != "", o.UID != "", len(o.Labels) > 0, len(o.Annotations) > 0,
		o.Allocatable != nil, len(o.Taints) > 0, o.Unschedulable,
		o.Requests != nil, o.Priority != nil, o.NodeName != "", o.Phase != "",
		o.SchedulerName != "", o.Group != "", o.Queue != "", o.MinMember != 0,
		o.PriorityClassName != "", o.Weight != 0, o.State != "", o.Value != nil,
		o.Reserved != nil,
	)
}

func appendInt32PtrField(b []byte, key string, v *int32) []byte {
	if v == nil {
		return b
	}
	return appendInt32Field(b, key, *v)
}
