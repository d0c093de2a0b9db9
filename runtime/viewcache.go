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
	// plugins, namespaces, budgets and quotas are View.plugins,
	// View.namespaces, View.disruptionBudgets and View.resourceQuotas, sent
	// whole with every open.
	plugins         []string
	namespaces      msgpack.RawMessage
	budgets, quotas msgpack.RawMessage
	// hyperNodes is View.hyperNodes (1.9), sent whole with every open.
	hyperNodes msgpack.RawMessage
	// taskClaims and volumeLimits are View.taskClaims and
	// View.volumeLimits (1.10), sent whole with every open.
	taskClaims, volumeLimits msgpack.RawMessage
	keys                     [numLists][]string
	objs                     [numLists][]msgpack.RawMessage
	sums                     [numLists][]uint64
	handles                  handles
}

// encodeView encodes the session's view, object by object, taking nodes
// and tasks that have not changed since an earlier session from the memo.
func encodeView(ssn *framework.Session, memo *viewMemo) *encodedView {
	h := newHandles(ssn)
	ev := &encodedView{handles: h, namespaces: encodeNamespaces(ssn.NamespaceLabels),
		budgets: encodeBudgets(wireBudgets(ssn.DisruptionBudgets)), quotas: encodeQuotas(wireQuotas(ssn.QuotaStatus)),
		hyperNodes: encodeHyperNodes(wireHyperNodes(h.hyperNodeList, h.hyperNodes, h.nodes))}
	ev.taskClaims, ev.volumeLimits = encodeClaimLists(wireTaskClaims(h.taskList, ssn.Storage, ssn.Devices), wireVolumeLimits(ssn.NodeList, ssn.Storage))
	for _, p := range ssn.Plugins() {
		ev.plugins = append(ev.plugins, policyName(p))
	}
	ev.grow([numLists]int{len(ssn.NodeList), len(h.queueList), len(ssn.JobList), len(h.taskList)})
	var e viewEncoder
	memo.mu.Lock()
	defer memo.mu.Unlock()
	for _, n := range ssn.NodeList {
		ev.add(listNodes, memo.node(n, h.tasks, &e))
	}
	for _, q := range h.queueList {
		wq := wireQueue(q)
		ev.add(listQueues, e.encodeQueue(&wq))
	}
	for ji, j := range ssn.JobList {
		wj := wireJob(j, h.jobQueue[ji], &h)
		ev.add(listJobs, e.encodeJob(&wj))
	}
	shapes := make([]uint64, 0, len(h.taskList))
	ruleShapes := make([]uint64, 0, len(h.taskList))
	nodes := make([]int32, 0, len(h.taskList))
	for th, t := range h.taskList {
		node := h.nodeHandle(t.NodeName)
		o := memo.task(t, h.taskJob[th], node, ssn.SpreadDefaults(t.Pod), &e)
		ev.add(listTasks, o)
		shapes = append(shapes, o.shape)
		ruleShapes = append(ruleShapes, o.ruleShape)
		nodes = append(nodes, node)
	}
	ev.handles.taskShape, ev.handles.taskRuleShape, ev.handles.taskNode = shapes, ruleShapes, nodes
	return ev
}

// grow makes room for each list's objects.
func (ev *encodedView) grow(sizes [numLists]int) {
	for l, n := range sizes {
		ev.keys[l] = make([]string, 0, n)
		ev.objs[l] = make([]msgpack.RawMessage, 0, n)
		ev.sums[l] = make([]uint64, 0, n)
	}
}

func (ev *encodedView) add(list int, o encodedObject) {
	ev.keys[list] = append(ev.keys[list], o.key)
	ev.objs[list] = append(ev.objs[list], o.obj)
	ev.sums[list] = append(ev.sums[list], o.sum)
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
	objectMemo.turn()
	ev := encodeView(ssn, &objectMemo)
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
		// ABI (1.5) is this host's version, [major, minor]: a module
		// sends what a later minor adds (domain rules) only to a host that
		// reads it. Older guests skip the unknown key.
		ABI [2]uint16 `msgpack:"abi"`
	}
	rawView struct {
		Nodes   []msgpack.RawMessage `msgpack:"nodes,omitempty"`
		Queues  []msgpack.RawMessage `msgpack:"queues,omitempty"`
		Jobs    []msgpack.RawMessage `msgpack:"jobs,omitempty"`
		Tasks   []msgpack.RawMessage `msgpack:"tasks,omitempty"`
		Plugins []string             `msgpack:"plugins,omitempty"`
		// Namespaces is 1.4 (older guests skip the unknown key), encoded
		// once per session by encodeNamespaces.
		Namespaces msgpack.RawMessage `msgpack:"namespaces,omitempty"`
		// DisruptionBudgets and ResourceQuotas are 1.8, encoded once per
		// session by encodeBudgets and encodeQuotas.
		DisruptionBudgets msgpack.RawMessage `msgpack:"disruptionBudgets,omitempty"`
		ResourceQuotas    msgpack.RawMessage `msgpack:"resourceQuotas,omitempty"`
		// HyperNodes is 1.9, encoded once per session by encodeHyperNodes.
		HyperNodes msgpack.RawMessage `msgpack:"hyperNodes,omitempty"`
		// TaskClaims and VolumeLimits are 1.10, encoded once per session
		// by encodeClaimLists.
		TaskClaims   msgpack.RawMessage `msgpack:"taskClaims,omitempty"`
		VolumeLimits msgpack.RawMessage `msgpack:"volumeLimits,omitempty"`
	}
	viewDelta struct {
		Nodes   listDelta `msgpack:"nodes"`
		Queues  listDelta `msgpack:"queues"`
		Jobs    listDelta `msgpack:"jobs"`
		Tasks   listDelta `msgpack:"tasks"`
		Plugins []string  `msgpack:"plugins,omitempty"`
		// Namespaces, DisruptionBudgets and ResourceQuotas are sent
		// whole, as in rawView.
		Namespaces        msgpack.RawMessage `msgpack:"namespaces,omitempty"`
		DisruptionBudgets msgpack.RawMessage `msgpack:"disruptionBudgets,omitempty"`
		ResourceQuotas    msgpack.RawMessage `msgpack:"resourceQuotas,omitempty"`
		HyperNodes        msgpack.RawMessage `msgpack:"hyperNodes,omitempty"`
		TaskClaims        msgpack.RawMessage `msgpack:"taskClaims,omitempty"`
		VolumeLimits      msgpack.RawMessage `msgpack:"volumeLimits,omitempty"`
	}
	listDelta struct {
		Len  int32 `msgpack:"len"`
		Full bool  `msgpack:"full"`
		// Keep (1.11) rebuilds a full list from the held one: each run
		// [newHandle, heldHandle, count] moves count held objects, and Set
		// gives every object no run covers. Before Set on the wire, so that
		// a guest places the runs first.
		Keep []keptRun      `msgpack:"keep,omitempty"`
		Set  []placedObject `msgpack:"set"`
	}
	keptRun struct {
		_msgpack struct{} `msgpack:",as_array"`
		To       int32
		From     int32
		Count    int32
	}
	placedObject struct {
		_msgpack struct{} `msgpack:",as_array"`
		Handle   int32
		Object   msgpack.RawMessage
	}
)

// hostABI is the version session_open tells a module this host speaks.
var hostABI = [2]uint16{abi.Major, abi.Minor}

// openArgs is the whole view, or, when the instance holds an earlier view
// of the same objects, only what differs from it. It returns the record of
// what the guest will hold once the call succeeds, and how many objects it
// sends as whole lists, sends in deltas, and leaves out. A list whose
// objects changed identity or order goes whole, or, to a guest that keeps
// runs (keeps: ABI 1.11), as runs of the held objects it still holds
// unchanged plus the others, which count as sent in deltas.
func (ev *encodedView) openArgs(held *heldView, args map[string]any, undoesEvents, keeps bool) (req openRequest, next *heldView, full, delta, kept int) {
	next = &heldView{}
	for l := 0; l < numLists; l++ {
		next.keys[l], next.sums[l] = ev.keys[l], ev.sums[l]
		if !undoesEvents {
			next.dirty[l] = make([]bool, len(ev.keys[l]))
		}
	}
	if held == nil {
		v := &rawView{Nodes: ev.objs[listNodes], Queues: ev.objs[listQueues], Jobs: ev.objs[listJobs], Tasks: ev.objs[listTasks], Plugins: ev.plugins, Namespaces: ev.namespaces,
			DisruptionBudgets: ev.budgets, ResourceQuotas: ev.quotas, HyperNodes: ev.hyperNodes,
			TaskClaims: ev.taskClaims, VolumeLimits: ev.volumeLimits}
		for l := range ev.objs {
			full += len(ev.objs[l])
		}
		return openRequest{View: v, Arguments: args, ABI: hostABI}, next, full, 0, 0
	}
	d := &viewDelta{Plugins: ev.plugins, Namespaces: ev.namespaces, DisruptionBudgets: ev.budgets, ResourceQuotas: ev.quotas, HyperNodes: ev.hyperNodes,
		TaskClaims: ev.taskClaims, VolumeLimits: ev.volumeLimits}
	for l, out := range []*listDelta{&d.Nodes, &d.Queues, &d.Jobs, &d.Tasks} {
		out.Len = int32(len(ev.keys[l]))
		same := slices.Equal(held.keys[l], ev.keys[l])
		out.Full = !same
		out.Set = []placedObject{} // an empty list, never nil, on the wire
		if !same && keeps {
			k, sent := ev.keepRuns(held, l, out)
			kept += k
			delta += sent
			continue
		}
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
	return openRequest{Delta: d, Arguments: args, ABI: hostABI}, next, full, delta, kept
}

// keepRuns fills out with list l as runs of held objects whose key and
// encoding are unchanged (and that no event changed in the guest since)
// and the other objects by handle. It returns how many objects the runs
// keep and how many go in Set.
func (ev *encodedView) keepRuns(held *heldView, l int, out *listDelta) (kept, sent int) {
	at := make(map[string]int32, len(held.keys[l]))
	for j, k := range held.keys[l] {
		at[k] = int32(j)
	}
	for i, obj := range ev.objs[l] {
		j, ok := at[ev.keys[l][i]]
		if !ok || held.sums[l][j] != ev.sums[l][i] || held.dirtied(l, int(j)) {
			out.Set = append(out.Set, placedObject{Handle: int32(i), Object: obj})
			continue
		}
		kept++
		if n := len(out.Keep); n > 0 {
			r := &out.Keep[n-1]
			if r.To+r.Count == int32(i) && r.From+r.Count == j {
				r.Count++
				continue
			}
		}
		out.Keep = append(out.Keep, keptRun{To: int32(i), From: j, Count: 1})
	}
	return kept, len(out.Set)
}
