package runtime

import (
	"slices"
	"sync"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// The four lists of the session view, in wire order.
const (
	listNodes = iota
	listQueues
	listJobs
	listTasks
	numLists
)

// encodedView is a session's view encoded once, object by object, and
// shared by every Wasm plugin of the session: nine plugins cost one
// encoding, and each instance's delta is found by comparing digests.
type encodedView struct {
	// plugins is View.plugins, sent whole with every open.
	plugins []string
	keys    [numLists][]string
	objs    [numLists][]msgpack.RawMessage
	sums    [numLists][]uint64
	handles handles
}

func encodeView(ssn *framework.Session) *encodedView {
	view, h := buildView(ssn)
	return encodeWire(view, h)
}

// encodeWire encodes a view object by object, into one buffer that the
// objects' bytes share. They are cut from it once it is whole: a slice
// taken while it grew would keep an outgrown array alive.
func encodeWire(view abi.View, h handles) *encodedView {
	ev := &encodedView{handles: h, plugins: view.Plugins}
	// About what an object takes; growing past it copies, nothing more.
	buf := make([]byte, 0, 256*(len(view.Nodes)+len(view.Queues)+len(view.Jobs)+len(view.Tasks)))
	var ends [numLists][]int
	for i := range view.Nodes {
		buf = appendNode(buf, &view.Nodes[i])
		ev.keys[listNodes] = append(ev.keys[listNodes], view.Nodes[i].Name)
		ends[listNodes] = append(ends[listNodes], len(buf))
	}
	for i := range view.Queues {
		buf = appendQueue(buf, &view.Queues[i])
		ev.keys[listQueues] = append(ev.keys[listQueues], view.Queues[i].Name)
		ends[listQueues] = append(ends[listQueues], len(buf))
	}
	for i := range view.Jobs {
		j := &view.Jobs[i]
		buf = appendJob(buf, j)
		ev.keys[listJobs] = append(ev.keys[listJobs], j.Namespace+"/"+j.Name)
		ends[listJobs] = append(ends[listJobs], len(buf))
	}
	for i := range view.Tasks {
		t := &view.Tasks[i]
		buf = appendTask(buf, t)
		ev.keys[listTasks] = append(ev.keys[listTasks], t.Namespace+"/"+t.Name)
		ends[listTasks] = append(ends[listTasks], len(buf))
	}
	start := 0
	for l := range ends {
		for _, end := range ends[l] {
			b := buf[start:end:end]
			ev.objs[l] = append(ev.objs[l], b)
			ev.sums[l] = append(ev.sums[l], fnv64a(b))
			start = end
		}
	}
	return ev
}

// fnv64a is FNV-1a over b, as hash/fnv computes it, without the hasher's
// allocation.
func fnv64a(b []byte) uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for _, c := range b {
		h ^= uint64(c)
		h *= prime
	}
	return h
}

// sharedView keeps the encoding of the session being opened. Every
// plugin's OnSessionOpen runs before the first action, so they all see
// the same state; a reopen after a failure encodes afresh.
var sharedView struct {
	sync.Mutex
	ssn *framework.Session
	uid string
	ev  *encodedView
}

func viewAtOpen(ssn *framework.Session) *encodedView {
	sharedView.Lock()
	defer sharedView.Unlock()
	if sharedView.ssn == ssn && sharedView.uid == string(ssn.UID) {
		return sharedView.ev
	}
	podRequests.turn()
	ev := encodeView(ssn)
	sharedView.ssn, sharedView.uid, sharedView.ev = ssn, string(ssn.UID), ev
	return ev
}

// heldView records what an instance's guest holds at the end of its last
// session: each object's key and digest as sent, and which objects events
// changed since (the guest applied them; the digests no longer match).
type heldView struct {
	keys  [numLists][]string
	sums  [numLists][]uint64
	dirty [numLists][]bool
}

// mark records that an event changed an object in the guest. A guest that
// undoes its events (ABI 1.3) has no marks to keep: dirty stays nil.
func (hv *heldView) mark(list int, handle int32) {
	if hv != nil && handle >= 0 && int(handle) < len(hv.dirty[list]) {
		hv.dirty[list][handle] = true
	}
}

func (hv *heldView) dirtied(list, i int) bool {
	return hv.dirty[list] != nil && hv.dirty[list][i]
}

// The wire shapes of session_open (docs/abi.md, section 6).
type (
	openRequest struct {
		View      *rawView       `msgpack:"view,omitempty"`
		Delta     *viewDelta     `msgpack:"delta,omitempty"`
		Arguments map[string]any `msgpack:"arguments,omitempty"`
	}
	rawView struct {
		Nodes   []msgpack.RawMessage `msgpack:"nodes,omitempty"`
		Queues  []msgpack.RawMessage `msgpack:"queues,omitempty"`
		Jobs    []msgpack.RawMessage `msgpack:"jobs,omitempty"`
		Tasks   []msgpack.RawMessage `msgpack:"tasks,omitempty"`
		Plugins []string             `msgpack:"plugins,omitempty"`
	}
	viewDelta struct {
		Nodes   listDelta `msgpack:"nodes"`
		Queues  listDelta `msgpack:"queues"`
		Jobs    listDelta `msgpack:"jobs"`
		Tasks   listDelta `msgpack:"tasks"`
		Plugins []string  `msgpack:"plugins,omitempty"`
	}
	listDelta struct {
		Len  int32          `msgpack:"len"`
		Full bool           `msgpack:"full"`
		Set  []placedObject `msgpack:"set"`
	}
	placedObject struct {
		_msgpack struct{} `msgpack:",as_array"`
		Handle   int32
		Object   msgpack.RawMessage
	}
)

// openArgs is the whole view, or, when the instance holds an earlier view
// of the same objects, only what differs from it. It returns the record of
// what the guest will hold once the call succeeds, and how many objects it
// sends as whole lists, sends in deltas, and leaves out.
func (ev *encodedView) openArgs(held *heldView, args map[string]any, undoesEvents bool) (req openRequest, next *heldView, full, delta, kept int) {
	next = &heldView{}
	for l := 0; l < numLists; l++ {
		next.keys[l], next.sums[l] = ev.keys[l], ev.sums[l]
		if !undoesEvents {
			next.dirty[l] = make([]bool, len(ev.keys[l]))
		}
	}
	if held == nil {
		v := &rawView{Nodes: ev.objs[listNodes], Queues: ev.objs[listQueues], Jobs: ev.objs[listJobs], Tasks: ev.objs[listTasks], Plugins: ev.plugins}
		for l := range ev.objs {
			full += len(ev.objs[l])
		}
		return openRequest{View: v, Arguments: args}, next, full, 0, 0
	}
	d := &viewDelta{Plugins: ev.plugins}
	for l, out := range []*listDelta{&d.Nodes, &d.Queues, &d.Jobs, &d.Tasks} {
		out.Len = int32(len(ev.keys[l]))
		same := slices.Equal(held.keys[l], ev.keys[l])
		out.Full = !same
		out.Set = []placedObject{} // an empty list, never nil, on the wire
		for i, obj := range ev.objs[l] {
			if same && held.sums[l][i] == ev.sums[l][i] && !held.dirtied(l, i) {
				kept++
				continue
			}
			out.Set = append(out.Set, placedObject{Handle: int32(i), Object: obj})
		}
		if same {
			delta += len(out.Set)
		} else {
			full += len(out.Set)
		}
	}
	return openRequest{Delta: d, Arguments: args}, next, full, delta, kept
}
