package podrules

import caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"

// Index is what the rules read of a session: its nodes' labels, the pods
// counted on nodes, and namespaces' labels. It keeps the counted pods, and
// a log of the changes Add and Remove make, three times over: every pod,
// the pods with required anti-affinity terms, and the pods with any
// affinity terms. A state whose task has no terms of its own reads only
// the other pods' terms, so it follows a short list instead of every pod.
type Index struct {
	nodes      []caldera.Node
	namespaces caldera.NamespaceLabels
	lists      [kinds][]*Pod
	logs       [kinds][]change
	byTask     []*Pod // the counted pod of each task handle, or nil
}

// kind selects the pods a state follows.
type kind int

const (
	everyPod kind = iota
	withRequiredAnti
	withTerms
	kinds
)

// Pod is a pod counted on a node: a task of the view or one of a node's
// Others.
type Pod struct {
	Namespace   string
	Labels      map[string]string
	Terminating bool
	// Affinity and Anti are its podAffinity and podAntiAffinity terms;
	// kinds that do not parse are left out, as kube-scheduler's NodeInfo
	// leaves them out of pods already on nodes.
	Affinity, Anti *caldera.PodAffinity
	Node           int32
	at             [kinds]int // position in each list it is in
}

// is reports whether the pod is of a kind.
func (p *Pod) is(k kind) bool {
	switch k {
	case withRequiredAnti:
		return len(required(p.Anti)) > 0
	case withTerms:
		return p.Affinity != nil || p.Anti != nil
	}
	return true
}

type change struct {
	pod   *Pod
	delta int64
}

// NewIndex counts the pods on the view's nodes.
func NewIndex(v *caldera.View) *Index {
	idx := &Index{nodes: v.Nodes, namespaces: v.Namespaces, byTask: make([]*Pod, len(v.Tasks))}
	for i := range v.Nodes {
		for j := range v.Nodes[i].Others {
			o := &v.Nodes[i].Others[j]
			idx.add(&Pod{Namespace: o.Namespace, Labels: o.Labels, Terminating: o.Terminating,
				Affinity: o.PodAffinity, Anti: o.PodAntiAffinity, Node: int32(i)})
		}
	}
	for i := range v.Tasks {
		if t := &v.Tasks[i]; t.Node >= 0 && int(t.Node) < len(v.Nodes) {
			idx.byTask[i] = idx.add(taskPod(t))
		}
	}
	for k := range idx.logs {
		idx.logs[k] = idx.logs[k][:0]
	}
	return idx
}

func taskPod(t *caldera.Task) *Pod {
	return &Pod{Namespace: t.Namespace, Labels: t.Labels, Terminating: t.Terminating,
		Affinity: t.PodAffinity, Anti: t.PodAntiAffinity, Node: t.Node}
}

// Add counts a task placed (or placed again) on its node.
func (idx *Index) Add(t *caldera.Task) {
	if int(t.Handle) >= len(idx.byTask) || idx.byTask[t.Handle] != nil || t.Node < 0 || int(t.Node) >= len(idx.nodes) {
		return
	}
	idx.byTask[t.Handle] = idx.add(taskPod(t))
}

// Remove stops counting a task, wherever it was counted.
func (idx *Index) Remove(t *caldera.Task) {
	if int(t.Handle) >= len(idx.byTask) {
		return
	}
	p := idx.byTask[t.Handle]
	if p == nil {
		return
	}
	idx.byTask[t.Handle] = nil
	for k := range kinds {
		if !p.is(k) {
			continue
		}
		list := idx.lists[k]
		last := list[len(list)-1]
		list[p.at[k]], last.at[k] = last, p.at[k]
		idx.lists[k] = list[:len(list)-1]
		idx.logs[k] = append(idx.logs[k], change{p, -1})
	}
}

func (idx *Index) add(p *Pod) *Pod {
	for k := range kinds {
		if p.is(k) {
			p.at[k] = len(idx.lists[k])
			idx.lists[k] = append(idx.lists[k], p)
			idx.logs[k] = append(idx.logs[k], change{p, 1})
		}
	}
	return p
}

// nodeLabels returns a node's labels by handle.
func (idx *Index) nodeLabels(node int32) map[string]string { return idx.nodes[node].Labels }

// follower keeps a state current with its Index: it applies every counted
// pod of its kind when built, then each entry of its kind's log it has not
// seen.
type follower struct {
	idx  *Index
	kind kind
	seen int
}

func (f *follower) start(idx *Index, k kind, apply func(*Pod, int64)) {
	f.idx, f.kind = idx, k
	for _, p := range idx.lists[k] {
		apply(p, 1)
	}
	f.seen = len(idx.logs[k])
}

func (f *follower) catchUp(apply func(*Pod, int64)) {
	if f.idx == nil { // a state whose pod does not parse
		return
	}
	log := f.idx.logs[f.kind]
	for ; f.seen < len(log); f.seen++ {
		apply(log[f.seen].pod, log[f.seen].delta)
	}
}
