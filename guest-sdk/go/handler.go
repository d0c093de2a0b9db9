package caldera

import (
	"sort"

	"github.com/caldera-scheduler/caldera/guest-sdk/go/internal/wire"
)

// CacheEventHandler is implemented by an event handler module: it sees
// each object event before the scheduler's cache records it and says what
// the cache records (docs/abi.md, section 8). It is called outside
// sessions, with no view; the host sends events in batches, and the SDK
// calls OnCacheEvent once per event, in order.
type CacheEventHandler interface {
	OnCacheEvent(ev *CacheEvent) EventVerdict
}

// EventKindsDeclarer is implemented by a handler that wants the events of
// some kinds only; without it, it gets every kind.
type EventKindsDeclarer interface {
	EventKinds() []string
}

// EventAction is what the cache does with an event.
type EventAction uint8

const (
	// EventPass records the event as it came.
	EventPass EventAction = iota
	// EventDrop keeps this version of the object out of the cache.
	EventDrop
	// EventAdjust records the object with the verdict's fields replacing
	// its own.
	EventAdjust
)

// EventVerdict is a handler's answer. With EventAdjust, each field that is
// set replaces the object's own: Allocatable, Labels and Taints for nodes;
// Requests, Priority and Labels for pods. An empty, non-nil Labels map or
// Taints slice clears them.
type EventVerdict struct {
	Action      EventAction
	Allocatable *Resource
	Labels      map[string]string
	Taints      []Taint
	Requests    *Resource
	Priority    *int32
}

// PassEvent records the event as it came.
func PassEvent() EventVerdict { return EventVerdict{Action: EventPass} }

// DropEvent keeps the object version out of the cache.
func DropEvent() EventVerdict { return EventVerdict{Action: EventDrop} }

// AdjustAllocatable records a node with another allocatable.
func AdjustAllocatable(r Resource) EventVerdict {
	return EventVerdict{Action: EventAdjust, Allocatable: &r}
}

var actionNames = [...]string{EventPass: "pass", EventDrop: "drop", EventAdjust: "adjust"}

// appendEventVerdict encodes a verdict: action first, then the fields set, in
// the order docs/abi.md section 8 lists them (the golden vector
// testdata/abi/reply_cache_event.msgpack pins action and allocatable).
func appendEventVerdict(b []byte, v EventVerdict) []byte {
	if int(v.Action) >= len(actionNames) {
		v = PassEvent()
	}
	n := uint32(1)
	adjust := v.Action == EventAdjust
	if adjust {
		for _, set := range []bool{v.Allocatable != nil, v.Labels != nil, v.Taints != nil, v.Requests != nil, v.Priority != nil} {
			if set {
				n++
			}
		}
	}
	b = wire.AppendMapHeader(b, n)
	b = wire.AppendString(b, "action")
	b = wire.AppendString(b, actionNames[v.Action])
	if !adjust {
		return b
	}
	if v.Allocatable != nil {
		b = wire.AppendString(b, "allocatable")
		b = appendResource(b, v.Allocatable)
	}
	if v.Labels != nil {
		b = wire.AppendString(b, "labels")
		keys := make([]string, 0, len(v.Labels))
		for k := range v.Labels {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b = wire.AppendMapHeader(b, uint32(len(keys)))
		for _, k := range keys {
			b = wire.AppendString(b, k)
			b = wire.AppendString(b, v.Labels[k])
		}
	}
	if v.Taints != nil {
		b = wire.AppendString(b, "taints")
		b = wire.AppendArrayHeader(b, uint32(len(v.Taints)))
		for _, t := range v.Taints {
			b, _ = t.MarshalMsg(b) // appending cannot fail
		}
	}
	if v.Requests != nil {
		b = wire.AppendString(b, "requests")
		b = appendResource(b, v.Requests)
	}
	if v.Priority != nil {
		b = wire.AppendString(b, "priority")
		b = wire.AppendInt32(b, *v.Priority)
	}
	return b
}

// appendResource writes {cpu, memory[, scalars]}, scalars sorted by name
// and left out when there are none.
func appendResource(b []byte, r *Resource) []byte {
	n := uint32(2)
	if len(r.Scalars) > 0 {
		n++
	}
	b = wire.AppendMapHeader(b, n)
	b = wire.AppendString(b, "cpu")
	b = wire.AppendInt64(b, r.MilliCPU)
	b = wire.AppendString(b, "memory")
	b = wire.AppendInt64(b, r.Memory)
	if n == 3 {
		b = wire.AppendString(b, "scalars")
		b, _ = r.Scalars.MarshalMsg(b)
	}
	return b
}

// cacheEvent decodes a batch of events and answers a verdict for
// each, in order.
func (h *host) cacheEvent(args []byte) (int32, string, []byte) {
	p := impl.cacheEventHandler
	if p == nil {
		return unknown("cache_event")
	}
	var batch CacheEventBatch
	if args != nil {
		if _, err := batch.UnmarshalMsg(args); err != nil {
			return codeDecodeFailed, "cache_event: " + err.Error(), nil
		}
	}
	b := wire.AppendArrayHeader(h.result(), uint32(len(batch.Events)))
	for i := range batch.Events {
		batch.Events[i].Arguments = batch.Arguments
		b = appendEventVerdict(b, p.OnCacheEvent(&batch.Events[i]))
	}
	return h.ok(b)
}
