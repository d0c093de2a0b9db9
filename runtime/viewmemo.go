package runtime

import (
	"maps"
	"slices"
	"strings"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// memoTable remembers values across sessions: what the current session
// asked for, and what the previous one did, kept one session more so that
// an object that comes back after one absence is still known. Anything
// older is forgotten, so the table holds at most two sessions' objects.
type memoTable[K comparable, V any] struct {
	cur, prev map[K]V
}

// get returns the value remembered for k, carrying it into the current
// session.
func (t *memoTable[K, V]) get(k K) (V, bool) {
	if v, ok := t.cur[k]; ok {
		return v, true
	}
	v, ok := t.prev[k]
	if ok {
		t.put(k, v)
	}
	return v, ok
}

func (t *memoTable[K, V]) put(k K, v V) {
	if t.cur == nil {
		t.cur = map[K]V{}
	}
	t.cur[k] = v
}

// turn starts a session.
func (t *memoTable[K, V]) turn() {
	t.prev, t.cur = t.cur, make(map[K]V, len(t.cur))
}

// encodedObject is one object of the view on the wire: its key in its
// list, its bytes and their digest, and for a task the digest of its shape
// (taskShape).
type encodedObject struct {
	key   string
	obj   []byte
	sum   uint64
	shape uint64
	// ruleShape is a task's shape without its inter-pod rules, which a
	// module's domain rules carry instead (ABI 1.5).
	ruleShape uint64
}

// stamped is an encoding and the inputs it was made from.
type stamped[S comparable] struct {
	stamp S
	encodedObject
}

// nodeStamp is what a node's encoding depends on besides the node object:
// its Generation changes with its resources and tasks (and is never reused,
// see api.NodeInfo), and its tasks' pods are informer objects, never
// changed in place.
type nodeStamp struct {
	name       string
	generation uint64
	// others digests which of the node's pods are not tasks of the view
	// (Node.Others): that changes with the session's jobs, not the node.
	others uint64
}

// taskStamp is everything of a task's encoding that its pod object does
// not fix. Requests are compared by pointer: a task's Resource objects are
// shared by its clones and never changed in place.
type taskStamp struct {
	req, initReq          *api.Resource
	namespace, name, role string
	job, node, priority   int32
	status                api.TaskStatus
	preemptable           bool
	bestEffort            bool
	// spreadDefaults is the pod's system default spread selector, which
	// the session's Services and controllers decide.
	spreadDefaults string
	// bind digests the annotations a placement of the session gave the
	// task for its bind, which its annotations carry (withBindAnnotations).
	bind string
}

func stampTask(t *api.TaskInfo, job, node int32) taskStamp {
	return taskStamp{req: t.Resreq, initReq: t.InitResreq, namespace: t.Namespace, name: t.Name, role: t.TaskRole,
		job: job, node: node, priority: t.Priority, status: t.Status, preemptable: t.Preemptable, bestEffort: t.BestEffort,
		bind: bindStamp(t.BindAnnotations)}
}

// bindStamp writes bind annotations in key order; "" for none, as for
// nearly every task.
func bindStamp(anns map[string]string) string {
	if len(anns) == 0 {
		return ""
	}
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(anns)) {
		b.WriteString(k)
		b.WriteByte(0)
		b.WriteString(anns[k])
		b.WriteByte(0)
	}
	return b.String()
}

// viewMemo keeps each node's and task's encoding from one session to the
// next: most of a cluster is as it was a second ago, and building and
// encoding every task and node was most of what a session view cost (12
// ms a session at 1,000 nodes and 2,000 pods, in a CPU profile). Entries are keyed by the informer's objects and checked
// against their stamps, so a stale entry is never used: it is replaced.
type viewMemo struct {
	mu sync.Mutex
	// Entries are pointers: a map stores a value this large out of line
	// anyway, and a pointer carried into the next session costs nothing.
	nodes memoTable[*v1.Node, *stamped[nodeStamp]]
	tasks memoTable[*v1.Pod, *stamped[taskStamp]]
}

// objectMemo serves every session of the process. Its keys are informer
// objects and its stamps are checked, so schedulers sharing it never see
// each other's entries wrongly; they do push each other's out, two turns
// after the last use, so it pays off for one scheduler per process.
var objectMemo viewMemo

func (m *viewMemo) turn() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.nodes.turn()
	m.tasks.turn()
}

// node returns the node's encoding, from the memo when it is still valid.
// A node without a Generation (built by hand, not by the cache) is always
// encoded afresh. Callers hold mu.
func (m *viewMemo) node(n *api.NodeInfo, inView map[api.TaskID]int32, e *viewEncoder) encodedObject {
	if n.Node == nil || n.Generation == 0 {
		return e.encodeNode(n, inView)
	}
	return remember(&m.nodes, n.Node, nodeStamp{name: n.Name, generation: n.Generation, others: othersDigest(n, inView)},
		func() encodedObject { return e.encodeNode(n, inView) })
}

// task returns the task's encoding, from the memo when it is still valid.
// Callers hold mu.
func (m *viewMemo) task(t *api.TaskInfo, job, node int32, spreadDefaults labels.Selector, e *viewEncoder) encodedObject {
	if t.Pod == nil {
		return e.encodeTask(t, job, node, nil)
	}
	stamp := stampTask(t, job, node)
	if spreadDefaults != nil {
		stamp.spreadDefaults = spreadDefaults.String()
	}
	return remember(&m.tasks, t.Pod, stamp,
		func() encodedObject { return e.encodeTask(t, job, node, spreadDefaults) })
}

// remember returns the encoding kept for key if it was made with this
// stamp, or makes one with encode and keeps it.
func remember[K, S comparable](t *memoTable[K, *stamped[S]], key K, stamp S, encode func() encodedObject) encodedObject {
	if s, ok := t.get(key); ok && s.stamp == stamp {
		return s.encodedObject
	}
	o := encode()
	t.put(key, &stamped[S]{stamp, o})
	return o
}

// viewEncoder encodes objects one at a time through a reused buffer; each
// object gets its own copy of the bytes, so that a memo entry keeps only
// its own.
type viewEncoder struct {
	scratch []byte
}

func (e *viewEncoder) object(key string, encode func([]byte) []byte) encodedObject {
	e.scratch = encode(e.scratch[:0])
	obj := make([]byte, len(e.scratch))
	copy(obj, e.scratch)
	return encodedObject{key: key, obj: obj, sum: fnv64a(obj)}
}

func (e *viewEncoder) encodeNode(n *api.NodeInfo, inView map[api.TaskID]int32) encodedObject {
	wn := wireNode(n, inView)
	return e.object(n.Name, func(b []byte) []byte { return appendNode(b, &wn) })
}

func (e *viewEncoder) encodeTask(t *api.TaskInfo, job, node int32, spreadDefaults labels.Selector) encodedObject {
	wt := wireTask(t, job, node, spreadDefaults)
	o := e.object(t.Namespace+"/"+t.Name, func(b []byte) []byte { return appendTask(b, &wt) })
	o.shape = e.taskShape(wt)
	wt.PodAffinity, wt.PodAntiAffinity, wt.AffinityError = nil, nil, ""
	wt.SpreadConstraints, wt.SpreadDefaulted = nil, false
	o.ruleShape = e.taskShape(wt)
	return o
}

// taskShape digests what a NodeLocal module's verdicts may depend on of a
// task (abi.Descriptor): not who it is, whose it is or where it stands,
// nor its labels and annotations, which tell a gang's pods apart (a
// StatefulSet's pod name, a Volcano task index) without changing where
// they fit. The job is left out because the promise forbids reading jobs:
// gangs of one template then share verdicts, which is most of what a large
// batch of gangs asks.
func (e *viewEncoder) taskShape(wt abi.Task) uint64 {
	wt.Namespace, wt.Name, wt.Job, wt.CreationTime, wt.Status, wt.Node = "", "", -1, 0, "", -1
	wt.Labels, wt.Annotations = nil, nil
	e.scratch = appendTask(e.scratch[:0], &wt)
	return fnv64a(e.scratch)
}

func (e *viewEncoder) encodeQueue(q *abi.Queue) encodedObject {
	return e.object(q.Name, func(b []byte) []byte { return appendQueue(b, q) })
}

func (e *viewEncoder) encodeJob(j *abi.Job) encodedObject {
	return e.object(j.Namespace+"/"+j.Name, func(b []byte) []byte { return appendJob(b, j) })
}
