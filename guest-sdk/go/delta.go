package caldera

import (
	"errors"

	"github.com/caldera-scheduler/caldera/guest-sdk/go/internal/wire"
)

// A session_open may carry, instead of the whole view, what changed since
// the view this instance held at the end of its previous session
// (docs/abi.md, section 6, "Deltas"): per list, its length and the objects
// to (re)place by handle, or the whole list. Decoding only what changed is
// what makes a session with many unchanged nodes cheap to open.

// openDelta decodes a session_open whose args carry "delta"; ok is false
// when they carry a whole view instead.
func (h *host) openDelta(args []byte) (s *Session, ok bool, err error) {
	n, rest, err := wire.ReadMapHeaderBytes(args)
	if err != nil {
		return nil, false, err
	}
	var delta []byte
	var arguments map[string]any
	var hostABI []int32
	for i := uint32(0); i < n; i++ {
		var key []byte
		if key, rest, err = wire.ReadMapKeyZC(rest); err != nil {
			return nil, false, err
		}
		switch unsafeString(key) {
		case "delta":
			delta = rest
			rest, err = wire.Skip(rest)
		case "arguments":
			arguments, rest, err = wire.ReadMapStrIntfBytes(rest, nil)
		case "abi":
			hostABI, rest, err = readInt32s(rest)
		default:
			rest, err = wire.Skip(rest)
		}
		if err != nil {
			return nil, false, err
		}
	}
	if delta == nil {
		return nil, false, nil
	}
	if h.last == nil {
		return nil, true, errors.New("a delta arrived but this instance holds no earlier view")
	}
	v := h.last
	h.last = nil
	if err := v.applyDelta(delta); err != nil {
		return nil, true, err
	}
	return &Session{View: *v, Arguments: arguments, hostABI: hostABI}, true, nil
}

func (v *View) applyDelta(b []byte) error {
	n, b, err := wire.ReadMapHeaderBytes(b)
	if err != nil {
		return err
	}
	// The plugin list, namespaces, budgets, quotas, hypernodes and the claim
	// lists come
	// whole with every open; absent means none.
	v.Plugins, v.Namespaces, v.DisruptionBudgets, v.ResourceQuotas, v.HyperNodes = v.Plugins[:0], nil, nil, nil, nil
	v.TaskClaims, v.VolumeLimits = nil, nil
	for i := uint32(0); i < n; i++ {
		var key []byte
		if key, b, err = wire.ReadMapKeyZC(b); err != nil {
			return err
		}
		switch unsafeString(key) {
		case "nodes":
			b, err = applyList(b, &v.Nodes, func(o *Node, raw []byte) ([]byte, error) { *o = Node{}; return o.UnmarshalMsg(raw) })
		case "queues":
			b, err = applyList(b, &v.Queues, func(o *Queue, raw []byte) ([]byte, error) { *o = Queue{}; return o.UnmarshalMsg(raw) })
		case "jobs":
			b, err = applyList(b, &v.Jobs, func(o *Job, raw []byte) ([]byte, error) { *o = Job{}; return o.UnmarshalMsg(raw) })
		case "tasks":
			b, err = applyList(b, &v.Tasks, func(o *Task, raw []byte) ([]byte, error) { *o = Task{}; return o.UnmarshalMsg(raw) })
		case "plugins":
			var m uint32
			if m, b, err = wire.ReadArrayHeaderBytes(b); err != nil {
				break
			}
			for j := uint32(0); j < m && err == nil; j++ {
				var name string
				if name, b, err = wire.ReadStringBytes(b); err == nil {
					v.Plugins = append(v.Plugins, name)
				}
			}
		case "namespaces":
			b, err = v.Namespaces.UnmarshalMsg(b)
		case "disruptionBudgets":
			b, err = v.DisruptionBudgets.UnmarshalMsg(b)
		case "resourceQuotas":
			b, err = v.ResourceQuotas.UnmarshalMsg(b)
		case "hyperNodes":
			b, err = v.HyperNodes.UnmarshalMsg(b)
		case "taskClaims":
			b, err = v.TaskClaims.UnmarshalMsg(b)
		case "volumeLimits":
			b, err = v.VolumeLimits.UnmarshalMsg(b)
		default:
			b, err = wire.Skip(b)
		}
		if err != nil {
			return wrap("delta "+string(key), err)
		}
	}
	return nil
}

// applyList reads {len, full, set: [[handle, object]...]} into list.
func applyList[T any](b []byte, list *[]T, decode func(*T, []byte) ([]byte, error)) ([]byte, error) {
	n, b, err := wire.ReadMapHeaderBytes(b)
	if err != nil {
		return b, err
	}
	length, full := -1, false
	for i := uint32(0); i < n; i++ {
		var key []byte
		if key, b, err = wire.ReadMapKeyZC(b); err != nil {
			return b, err
		}
		switch unsafeString(key) {
		case "len":
			var l int32
			l, b, err = wire.ReadInt32Bytes(b)
			length = int(l)
		case "full":
			full, b, err = wire.ReadBoolBytes(b)
		case "set":
			if length < 0 {
				return b, errors.New("set before len")
			}
			if full {
				if cap(*list) >= length {
					*list = (*list)[:length]
				} else {
					*list = make([]T, length)
				}
			} else if len(*list) != length {
				return b, errors.New("the delta is for " + itoa(length) + " objects, the view holds " + itoa(len(*list)))
			}
			if wire.IsNil(b) {
				b, err = wire.ReadNilBytes(b)
				continue
			}
			var m uint32
			if m, b, err = wire.ReadArrayHeaderBytes(b); err != nil {
				return b, err
			}
			for j := uint32(0); j < m; j++ {
				var sz uint32
				if sz, b, err = wire.ReadArrayHeaderBytes(b); err != nil || sz != 2 {
					return b, setEntryError(j, err)
				}
				var h int32
				if h, b, err = wire.ReadInt32Bytes(b); err != nil {
					return b, err
				}
				if h < 0 || int(h) >= length {
					return b, errors.New("handle " + itoa(h) + " of " + itoa(length))
				}
				if b, err = decode(&(*list)[h], b); err != nil {
					return b, err
				}
			}
		default:
			b, err = wire.Skip(b)
		}
		if err != nil {
			return b, err
		}
	}
	return b, nil
}

// readInt32s reads an array of small integers: session_open's abi.
func readInt32s(b []byte) ([]int32, []byte, error) {
	n, b, err := wire.ReadArrayHeaderBytes(b)
	if err != nil {
		return nil, b, err
	}
	out := make([]int32, n)
	for i := range out {
		if out[i], b, err = wire.ReadInt32Bytes(b); err != nil {
			return nil, b, err
		}
	}
	return out, b, nil
}
