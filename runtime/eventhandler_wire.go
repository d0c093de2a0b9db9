package runtime

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/caldera-scheduler/caldera/abi"
)

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
func encodeArguments(args map[string]any) ([]byte, error) {
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.SetSortMapKeys(true)
	if err := enc.Encode(args); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

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
		b = appendStr(b, "unschedulable")
		b = append(b, 0xc3) // true
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
	n := 1 // name
	for _, present := range [...]bool{
		o.Namespace != "", o.UID != "", len(o.Labels) > 0, len(o.Annotations) > 0,
		o.Allocatable != nil, len(o.Taints) > 0, o.Unschedulable,
		o.Requests != nil, o.Priority != nil, o.NodeName != "", o.Phase != "",
		o.SchedulerName != "", o.Group != "", o.Queue != "", o.MinMember != 0,
		o.PriorityClassName != "", o.Weight != 0, o.State != "", o.Value != nil,
		o.Reserved != nil,
	} {
		if present {
			n++
		}
	}
	return n
}

func appendStrField(b []byte, key, v string) []byte {
	if v == "" {
		return b
	}
	return appendStr(appendStr(b, key), v)
}

func appendStrMapField(b []byte, key string, m map[string]string) []byte {
	if len(m) == 0 {
		return b
	}
	b = appendStr(b, key)
	b = appendMapLen(b, len(m))
	var buf [16]string
	for _, k := range sortedKeys(m, buf[:0]) {
		b = appendStr(b, k)
		b = appendStr(b, m[k])
	}
	return b
}

func appendInt32PtrField(b []byte, key string, v *int32) []byte {
	if v == nil {
		return b
	}
	return appendInt32(appendStr(b, key), *v)
}

func appendResourceField(b []byte, key string, r *abi.Resource) []byte {
	if r == nil {
		return b
	}
	b = appendStr(b, key)
	if len(r.Scalars) == 0 {
		b = appendMapLen(b, 2)
	} else {
		b = appendMapLen(b, 3)
	}
	b = appendStr(b, "cpu")
	b = appendInt64(b, r.MilliCPU)
	b = appendStr(b, "memory")
	b = appendInt64(b, r.Memory)
	if len(r.Scalars) > 0 {
		b = appendStr(b, "scalars")
		b = appendMapLen(b, len(r.Scalars))
		var buf [8]string
		for _, k := range sortedKeys(r.Scalars, buf[:0]) {
			b = appendStr(b, k)
			b = appendInt64(b, r.Scalars[k])
		}
	}
	return b
}

// sortedKeys returns m's keys in order, in keys (stack space the caller
// offers, so that a small map costs no allocation).
func sortedKeys[V any](m map[string]V, keys []string) []string {
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// The msgpack primitives, in the forms msgpack/v5 chooses.

func appendNil(b []byte) []byte { return append(b, 0xc0) }

func appendStr(b []byte, s string) []byte {
	switch n := len(s); {
	case n < 32:
		b = append(b, 0xa0|byte(n))
	case n < 256:
		b = append(b, 0xd9, byte(n))
	case n <= math.MaxUint16:
		b = binary.BigEndian.AppendUint16(append(b, 0xda), uint16(n))
	default:
		b = binary.BigEndian.AppendUint32(append(b, 0xdb), uint32(n))
	}
	return append(b, s...)
}

func appendMapLen(b []byte, n int) []byte   { return appendLen(b, n, 0x80, 0xde) }
func appendArrayLen(b []byte, n int) []byte { return appendLen(b, n, 0x90, 0xdc) }

// appendLen writes a map or array header: fix form below 16, then the
// 16-bit form (code16) and the 32-bit one (code16+1).
func appendLen(b []byte, n int, fix, code16 byte) []byte {
	switch {
	case n < 16:
		return append(b, fix|byte(n))
	case n <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(b, code16), uint16(n))
	default:
		return binary.BigEndian.AppendUint32(append(b, code16+1), uint32(n))
	}
}

func appendInt32(b []byte, v int32) []byte {
	return binary.BigEndian.AppendUint32(append(b, 0xd2), uint32(v))
}

func appendInt64(b []byte, v int64) []byte {
	return binary.BigEndian.AppendUint64(append(b, 0xd3), uint64(v))
}
