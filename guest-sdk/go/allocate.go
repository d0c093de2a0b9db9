package caldera

import "github.com/caldera-scheduler/caldera/guest-sdk/go/internal/wire"

// Allocator is asked, each time the session places a task (allocated,
// pipelined, or its eviction undone), whether the placement stands (ABI
// 1.12); the task is on its node in the view already. It may give the pod
// annotations, written when the pod is bound (deviceshare names the card
// a GPU-share pod gets), and returns "" to keep the placement or why it
// refuses it: the session then takes the task off the node at once, and
// OnDeallocate follows. The scheduler drops the annotations of a task that
// leaves its node; the plugin gives back what it held for it there.
type Allocator interface {
	Allocate(s *Session, task *Task, p *Placement) (refusal string)
}

// Placement is what Allocate learns of a placement beside the task, and
// the annotations it gives the pod. It is reused from call to call: keep
// nothing of it.
type Placement struct {
	// Now is the scheduler's clock when it asked, in Unix nanoseconds: a
	// module's own clock is a fixed fake (docs/abi.md, section 4).
	Now int64

	keys, values []string
	// removed marks the keys taken back (Remove), by position.
	removed []bool
}

// Annotate gives the pod an annotation, written when it is bound.
func (b *Placement) Annotate(key, value string) { b.put(key, value, false) }

// TakeBack takes back an annotation an earlier Allocate of the session
// gave the task.
func (b *Placement) TakeBack(key string) { b.put(key, "", true) }

func (b *Placement) put(key, value string, removed bool) {
	for i, k := range b.keys {
		if k == key {
			b.values[i], b.removed[i] = value, removed
			return
		}
	}
	// Kept in key order, as the reply writes them.
	i := len(b.keys)
	for i > 0 && b.keys[i-1] > key {
		i--
	}
	b.keys = append(b.keys[:i], append([]string{key}, b.keys[i:]...)...)
	b.values = append(b.values[:i], append([]string{value}, b.values[i:]...)...)
	b.removed = append(b.removed[:i], append([]bool{removed}, b.removed[i:]...)...)
}

func (b *Placement) reset(now int64) {
	b.Now = now
	b.keys, b.values, b.removed = b.keys[:0], b.values[:0], b.removed[:0]
}

// allocate serves the allocate hook: nil to keep the placement without
// annotations, else {annotations: {key: value or nil}} or {refusal: why}.
func (h *host) allocate() (int32, string, []byte) {
	p := impl.allocator
	if p == nil {
		return unknown("allocate")
	}
	t, err := h.task(h.args.Task)
	if err != nil {
		return codeDecodeFailed, "allocate: " + err.Error(), nil
	}
	b := &h.placement
	b.reset(h.args.Now)
	refusal := p.Allocate(h.session, t, b)
	out := h.result()
	switch {
	case refusal != "":
		out = wire.AppendMapHeader(out, 1)
		out = wire.AppendString(wire.AppendString(out, "refusal"), refusal)
	case len(b.keys) == 0:
		out = wire.AppendNil(out)
	default:
		out = wire.AppendMapHeader(out, 1)
		out = wire.AppendMapHeader(wire.AppendString(out, "annotations"), uint32(len(b.keys)))
		for i, k := range b.keys {
			out = wire.AppendString(out, k)
			if b.removed[i] {
				out = wire.AppendNil(out)
			} else {
				out = wire.AppendString(out, b.values[i])
			}
		}
	}
	return h.ok(out)
}
