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
	if err := v.applyDelta(delta, &h.spare); err != nil {
		return nil, true, err
	}
	return &Session{View: *v, Arguments: arguments, hostABI: hostABI}, true, nil
}

// spareLists holds, per list, the array a kept-runs delta (1.11) last
// replaced, for the next one to build into: a TinyGo module would
// otherwise allocate a whole list per such session, and collect the view
// for it.
type spareLists struct {
	nodes  []Node
	queues []Queue
	jobs   []Job
	tasks  []Task
}

func (v *View) applyDelta(b []byte, spare *spareLists) error {
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
			b, err = applyList(b, &v.Nodes, &spare.nodes, func(o *Node, raw []byte) ([]byte, error) { *o = Node{}; return o.UnmarshalMsg(raw) })
		case "queues":
			b, err = applyList(b, &v.Queues, &spare.queues, func(o *Queue, raw []byte) ([]byte, error) { *o = Queue{}; return o.UnmarshalMsg(raw) })
		case "jobs":
			b, err = applyList(b, &v.Jobs, &spare.jobs, func(o *Job, raw []byte) ([]byte, error) { *o = Job{}; return o.UnmarshalMsg(raw) })
		case "tasks":
			b, err = applyList(b, &v.Tasks, &spare.tasks, func(o *Task, raw []byte) ([]byte, error) { *o = Task{}; return o.UnmarshalMsg(raw) })
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

// applyList reads {len, full, keep?, set: [[handle, object]...]} into
// list. keep (1.11) rebuilds a full list from runs of the held one, in
// spare's array when it is large enough: [newHandle, heldHandle, count]
// each; set then fills the rest. The held array becomes the spare.
func applyList[T any](b []byte, list, spare *[]T, decode func(*T, []byte) ([]byte, error)) ([]byte, error) {
	n, b, err := wire.ReadMapHeaderBytes(b)
	if err != nil {
		return b, err
	}
	length, full, rebuilt := -1, false, false
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
		case "keep":
			if length < 0 || !full {
				return b, errors.New("keep without len and full")
			}
			var fresh []T
			if fresh, b, err = keepRuns(b, *list, *spare, length); err != nil {
				return b, err
			}
			*list, *spare, rebuilt = fresh, (*list)[:0], true
		case "set":
			if length < 0 {
				return b, errors.New("set before len")
			}
			if full && !rebuilt {
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

// keepRuns builds a list of length objects from the held list's runs, in
// into's array when it has room. Every position is cleared first, so that
// one neither a run nor set covers reads as an empty object, not a stale
// one.
func keepRuns[T any](b []byte, held, into []T, length int) ([]T, []byte, error) {
	m, b, err := wire.ReadArrayHeaderBytes(b)
	if err != nil {
		return nil, b, err
	}
	fresh := into[:0]
	if cap(fresh) >= length {
		fresh = fresh[:length]
		clear(fresh)
	} else {
		fresh = make([]T, length)
	}
	for j := uint32(0); j < m; j++ {
		var run [3]int32
		var sz uint32
		if sz, b, err = wire.ReadArrayHeaderBytes(b); err != nil || sz != 3 {
			return nil, b, errors.New("keep entry " + itoa(int32(j)) + " is not [newHandle, heldHandle, count]")
		}
		for k := range run {
			if run[k], b, err = wire.ReadInt32Bytes(b); err != nil {
				return nil, b, err
			}
		}
		to, from, count := int(run[0]), int(run[1]), int(run[2])
		if to < 0 || from < 0 || count < 0 || to+count > length || from+count > len(held) {
			return nil, b, errors.New("keep run " + itoa(run[0]) + " " + itoa(run[1]) + " " + itoa(run[2]) + " outside " + itoa(int32(len(held))) + " held, " + itoa(int32(length)) + " new")
		}
		copy(fresh[to:to+count], held[from:from+count])
	}
	return fresh, b, nil
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
