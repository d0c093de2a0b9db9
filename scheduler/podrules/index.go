package podrules

import (
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// Index is what the rules read of a session: its nodes with their labels,
// the pods counted on each, and the namespaces' labels. Pods placed and
// removed during the session are logged, so that template states can catch
// up. The Index is changed only from the session's event handlers, which
// never run while predicates or scores are being computed.
type Index struct {
	nodes    []*Node
	byName   map[string]*Node
	nsLabels map[string]labels.Set
	pods     map[api.TaskID]*Pod
	log      []change
	// Every counted pod is in all and in byLabel under each of its labels;
	// requiredAnti files those with required anti-affinity terms, scoring
	// those with terms the affinity score reads of existing pods. A state
	// built mid-session walks only the sets that can hold pods which
	// change it (sources).
	all          podSet
	byLabel      map[labelPair]podSet
	requiredAnti termIndex
	scoring      termIndex

	domainsMu sync.Mutex
	domains   map[string]*keyDomains
}

// keyDomains numbers the values of one topology key on the session's
// nodes: of[node] is the node's value's number, -1 when it lacks the key.
type keyDomains struct {
	of []int32
	n  int
}

// domainsOf numbers the values of key, once per session.
func (idx *Index) domainsOf(key string) *keyDomains {
	idx.domainsMu.Lock()
	defer idx.domainsMu.Unlock()
	if kd, ok := idx.domains[key]; ok {
		return kd
	}
	kd := &keyDomains{of: make([]int32, len(idx.nodes))}
	ids := map[string]int32{}
	for i, nd := range idx.nodes {
		v, ok := nd.labels[key]
		if !ok {
			kd.of[i] = -1
			continue
		}
		id, seen := ids[v]
		if !seen {
			id = int32(len(ids))
			ids[v] = id
		}
		kd.of[i] = id
	}
	kd.n = len(ids)
	if idx.domains == nil {
		idx.domains = map[string]*keyDomains{}
	}
	idx.domains[key] = kd
	return kd
}

// podSet is a set of counted pods.
type podSet map[*Pod]struct{}

// labelPair is one label, key and value.
type labelPair struct{ key, value string }

// Node is one session node as the rules see it.
type Node struct {
	index  int
	node   *v1.Node
	labels map[string]string
	pods   map[*Pod]struct{}
}

// Pod is a pod counted on a node.
type Pod struct {
	pod   *v1.Pod
	node  *Node
	terms podTerms
}

type change struct {
	pod   *Pod
	delta int64
}

// NewIndex indexes the session's nodes and the pods on them. Namespace
// labels are those of the cluster's Namespace objects; a namespace without
// an object has no labels.
func NewIndex(nodes []*api.NodeInfo, nsLabels map[string]map[string]string) *Index {
	idx := &Index{
		nodes:        make([]*Node, len(nodes)),
		byName:       make(map[string]*Node, len(nodes)),
		nsLabels:     make(map[string]labels.Set, len(nsLabels)),
		pods:         map[api.TaskID]*Pod{},
		all:          podSet{},
		byLabel:      map[labelPair]podSet{},
		requiredAnti: newTermIndex(),
		scoring:      newTermIndex(),
	}
	for name, l := range nsLabels {
		idx.nsLabels[name] = labels.Set(l)
	}
	for i, n := range nodes {
		var lbls map[string]string
		if n.Node != nil {
			lbls = n.Node.Labels
		}
		nd := &Node{index: i, node: n.Node, labels: lbls, pods: make(map[*Pod]struct{}, len(n.Tasks))}
		idx.nodes[i] = nd
		idx.byName[n.Name] = nd
		for _, t := range n.Tasks {
			idx.add(t, nd, false)
		}
	}
	return idx
}

// namespaceLabels returns a namespace's labels, nil when it has none.
func (idx *Index) namespaceLabels(ns string) labels.Set { return idx.nsLabels[ns] }

// Add counts a task placed (or placed again) on its node.
func (idx *Index) Add(task *api.TaskInfo) {
	if task.Pod == nil {
		return
	}
	if _, ok := idx.pods[task.UID]; ok {
		return
	}
	if nd := idx.byName[task.NodeName]; nd != nil {
		idx.add(task, nd, true)
	}
}

// Remove stops counting a task, wherever it was counted.
func (idx *Index) Remove(task *api.TaskInfo) {
	p, ok := idx.pods[task.UID]
	if !ok {
		return
	}
	delete(idx.pods, task.UID)
	delete(p.node.pods, p)
	idx.forget(p)
	idx.log = append(idx.log, change{pod: p, delta: -1})
}

func (idx *Index) add(task *api.TaskInfo, nd *Node, logged bool) {
	if task.Pod == nil {
		return
	}
	// Terms that do not parse are left out, as kube-scheduler's NodeInfo
	// does for pods already on nodes.
	terms, _ := parsePodTerms(task.Pod)
	p := &Pod{pod: task.Pod, node: nd, terms: terms}
	idx.pods[task.UID] = p
	nd.pods[p] = struct{}{}
	idx.remember(p)
	if logged {
		idx.log = append(idx.log, change{pod: p, delta: 1})
	}
}

// remember puts a pod into the sets; forget takes it out.
func (idx *Index) remember(p *Pod) {
	idx.all[p] = struct{}{}
	for k, v := range p.pod.Labels {
		lp := labelPair{k, v}
		set := idx.byLabel[lp]
		if set == nil {
			set = podSet{}
			idx.byLabel[lp] = set
		}
		set[p] = struct{}{}
	}
	idx.requiredAnti.add(p, p.terms.requiredAnti)
	t := &p.terms
	idx.scoring.add(p, t.requiredAffinity, t.preferredAffinity, t.preferredAnti)
}

func (idx *Index) forget(p *Pod) {
	delete(idx.all, p)
	for k, v := range p.pod.Labels {
		delete(idx.byLabel[labelPair{k, v}], p)
	}
	idx.requiredAnti.remove(p, p.terms.requiredAnti)
	t := &p.terms
	idx.scoring.remove(p, t.requiredAffinity, t.preferredAffinity, t.preferredAnti)
}

// eachPod calls f once for every counted pod in any of the sets; with no
// sets, for every counted pod.
func (idx *Index) eachPod(sets []podSet, f func(*Pod)) {
	if sets == nil {
		sets = []podSet{idx.all}
	}
	for i, set := range sets {
	pods:
		for p := range set {
			for _, earlier := range sets[:i] {
				if _, seen := earlier[p]; seen {
					continue pods
				}
			}
			f(p)
		}
	}
}

// NodeOf returns the indexed node of a session node, nil if it is not one.
func (idx *Index) NodeOf(n *api.NodeInfo) *Node {
	if i := n.Index; i >= 0 && i < len(idx.nodes) && idx.nodes[i].node == n.Node && n.Node != nil {
		return idx.nodes[i]
	}
	return idx.byName[n.Name]
}
