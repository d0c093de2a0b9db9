package caldera

import (
	"slices"
	"strings"

	"github.com/caldera-scheduler/caldera/guest-sdk/go/internal/wire"
)

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

	// annotations are kept in key order, as the reply writes them.
	annotations []annotation
}

// annotation is one annotation of a Placement; taken: TakeBack.
type annotation struct {
	key, value string
	taken      bool
}

// Annotate gives the pod an annotation, written when it is bound.
func (b *Placement) Annotate(key, value string) { b.put(annotation{key: key, value: value}) }

// TakeBack takes back an annotation an earlier Allocate of the session
// gave the task.
func (b *Placement) TakeBack(key string) { b.put(annotation{key: key, taken: true}) }

func (b *Placement) put(a annotation) {
	i, found := slices.BinarySearchFunc(b.annotations, a.key, func(x annotation, key string) int { return strings.Compare(x.key, key) })
	if found {
		b.annotations[i] = a
		return
	}
	b.annotations = slices.Insert(b.annotations, i, a)
}

func (b *Placement) reset(now int64) {
	b.Now = now
	b.annotations = b.annotations[:0]
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
	case len(b.annotations) == 0:
		out = wire.AppendNil(out)
	default:
		out = wire.AppendMapHeader(out, 1)
		out = wire.AppendMapHeader(wire.AppendString(out, "annotations"), uint32(len(b.annotations)))
		for _, a := range b.annotations {
			out = wire.AppendString(out, a.key)
			if a.taken {
				out = wire.AppendNil(out)
			} else {
				out = wire.AppendString(out, a.value)
			}
		}
	}
	return h.ok(out)
}
