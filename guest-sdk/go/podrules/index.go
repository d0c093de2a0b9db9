package podrules

import caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"

// Index is what the rules read of a session: its nodes' labels, the pods
// counted on each node, and namespaces' labels. Add and Remove log their
// changes, which the template states apply when they catch up.
type Index struct {
	nodes      []caldera.Node
	namespaces caldera.NamespaceLabels
	pods       [][]*Pod // per node handle
	byTask     []*Pod   // the counted pod of each task handle, or nil
	log        []change
}

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
	at             int // position in its node's list
}

type change struct {
	pod   *Pod
	delta int64
}

// NewIndex counts the pods on the view's nodes.
func NewIndex(v *caldera.View) *Index {
	idx := &Index{nodes: v.Nodes, namespaces: v.Namespaces,
		pods: make([][]*Pod, len(v.Nodes)), byTask: make([]*Pod, len(v.Tasks))}
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
	idx.log = idx.log[:0]
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
	list := idx.pods[p.Node]
	last := list[len(list)-1]
	list[p.at], last.at = last, p.at
	idx.pods[p.Node] = list[:len(list)-1]
	idx.log = append(idx.log, change{p, -1})
}

func (idx *Index) add(p *Pod) *Pod {
	p.at = len(idx.pods[p.Node])
	idx.pods[p.Node] = append(idx.pods[p.Node], p)
	idx.log = append(idx.log, change{p, 1})
	return p
}

// nodeLabels returns a node's labels by handle.
func (idx *Index) nodeLabels(node int32) map[string]string { return idx.nodes[node].Labels }

// follower keeps a state current with its Index: it applies every counted
// pod when built, then each log entry it has not seen.
type follower struct {
	idx  *Index
	seen int
}

func (f *follower) start(idx *Index, apply func(*Pod, int64)) {
	f.idx = idx
	for _, list := range idx.pods {
		for _, p := range list {
			apply(p, 1)
		}
	}
	f.seen = len(idx.log)
}

func (f *follower) catchUp(apply func(*Pod, int64)) {
	if f.idx == nil { // a state whose pod does not parse
		return
	}
	for ; f.seen < len(f.idx.log); f.seen++ {
		c := f.idx.log[f.seen]
		apply(c.pod, c.delta)
	}
}
