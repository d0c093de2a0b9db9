package podrules

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"
)

// Reasons of the InterPodAffinity filter, kube-scheduler's words.
const (
	ReasonAffinityRulesNotMatch          = "node(s) didn't match pod affinity rules"
	ReasonAntiAffinityRulesNotMatch      = "node(s) didn't match pod anti-affinity rules"
	ReasonExistingAntiAffinityNotMatched = "node(s) didn't satisfy existing pods anti-affinity rules"
)

// topologyPair is one topology domain: a node label and its value.
type topologyPair struct{ key, value string }

type pairCounts map[topologyPair]int64

// update adds value to the node's domain of key; a domain that drops to
// zero is forgotten, so that an empty map means no pod matched anywhere.
func (m pairCounts) update(nd *Node, key string, value int64) {
	v, ok := nd.labels[key]
	if !ok {
		return
	}
	p := topologyPair{key, v}
	if m[p] += value; m[p] == 0 {
		delete(m, p)
	}
}

// AffinityFilter is the InterPodAffinity filter's state for one template:
// kube-scheduler's PreFilter counts, kept current with the Index.
type AffinityFilter struct {
	follower
	pod      *v1.Pod
	terms    podTerms
	nsLabels labels.Set
	// Err is the pod's parse error: the pod is unschedulable with it.
	Err error

	existingAnti pairCounts // existing pods' required anti-affinity matching the pod
	// antiKeys counts, per topology key, the domains existingAnti holds, so
	// that Filter looks up a node's value of those few keys instead of
	// walking its labels.
	antiKeys []keyCount
	affinity pairCounts // pods matching all the pod's required affinity terms
	anti     pairCounts // pods matching the pod's required anti-affinity terms
}

// NewAffinityFilter builds the filter state for a pod.
func NewAffinityFilter(idx *Index, pod *v1.Pod) *AffinityFilter {
	f := &AffinityFilter{pod: pod, nsLabels: idx.namespaceLabels(pod.Namespace)}
	terms, err := parsePodTerms(pod)
	if err != nil {
		f.Err = err
		return f
	}
	terms.requiredAffinity = idx.resolveNamespaces(terms.requiredAffinity)
	terms.requiredAnti = idx.resolveNamespaces(terms.requiredAnti)
	f.terms = terms
	f.existingAnti, f.affinity, f.anti = pairCounts{}, pairCounts{}, pairCounts{}
	// Existing pods' required anti-affinity, and pods the pod's own
	// required terms can select.
	var src sources
	idx.requiredAnti.selectors(&src, pod)
	src.everyTerm(idx, terms.requiredAffinity)
	src.anyTerm(idx, terms.requiredAnti)
	f.start(idx, src.list(), f.apply)
	return f
}

// resolveNamespaces turns each term's namespace selector into the names of
// the namespaces it selects now, as kube-scheduler does for the incoming
// pod's terms. An empty selector ({}) selects every namespace and is kept.
func (idx *Index) resolveNamespaces(terms []term) []term {
	for i := range terms {
		t := &terms[i]
		if t.nsSelector.Empty() {
			continue
		}
		ns := sets.New[string]().Union(t.namespaces)
		for name, l := range idx.nsLabels {
			if t.nsSelector.Matches(l) {
				ns.Insert(name)
			}
		}
		t.namespaces, t.nsSelector = ns, labels.Nothing()
	}
	return terms
}

func (f *AffinityFilter) apply(p *Pod, d int64) {
	for i := range p.terms.requiredAnti {
		t := &p.terms.requiredAnti[i]
		if t.matches(f.pod, f.nsLabels) {
			f.updateExisting(p.node, t.topologyKey, d)
		}
	}
	if matchesAll(f.terms.requiredAffinity, p.pod) {
		for i := range f.terms.requiredAffinity {
			f.affinity.update(p.node, f.terms.requiredAffinity[i].topologyKey, d)
		}
	}
	for i := range f.terms.requiredAnti {
		t := &f.terms.requiredAnti[i]
		if t.matches(p.pod, nil) {
			f.anti.update(p.node, t.topologyKey, d)
		}
	}
}

// keyCount is a topology key and how many domains of it are held.
type keyCount struct {
	key string
	n   int
}

// updateExisting adds d to the node's domain of key in existingAnti and
// keeps antiKeys in step.
func (f *AffinityFilter) updateExisting(nd *Node, key string, d int64) {
	v, ok := nd.labels[key]
	if !ok {
		return
	}
	pair := topologyPair{key, v}
	before := f.existingAnti[pair]
	f.existingAnti.update(nd, key, d)
	after := f.existingAnti[pair]
	switch {
	case before == 0 && after != 0:
		for i := range f.antiKeys {
			if f.antiKeys[i].key == key {
				f.antiKeys[i].n++
				return
			}
		}
		f.antiKeys = append(f.antiKeys, keyCount{key, 1})
	case before != 0 && after == 0:
		for i := range f.antiKeys {
			if f.antiKeys[i].key == key {
				if f.antiKeys[i].n--; f.antiKeys[i].n == 0 {
					f.antiKeys = append(f.antiKeys[:i], f.antiKeys[i+1:]...)
				}
				return
			}
		}
	}
}

// CatchUp applies the placements and removals made since the last call.
// The filter answers from the state as of then, as Volcano's answers come
// from the PreFilter state computed when the task's PrePredicate ran.
func (f *AffinityFilter) CatchUp() { f.catchUp(f.apply) }

// Filter returns the reason the node fails and whether that failure is
// unresolvable by preemption, or "" when it passes.
func (f *AffinityFilter) Filter(nd *Node) (reason string, unresolvable bool) {
	if !f.satisfiesAffinity(nd) {
		return ReasonAffinityRulesNotMatch, true
	}
	if len(f.anti) > 0 {
		for i := range f.terms.requiredAnti {
			key := f.terms.requiredAnti[i].topologyKey
			if v, ok := nd.labels[key]; ok && f.anti[topologyPair{key, v}] > 0 {
				return ReasonAntiAffinityRulesNotMatch, false
			}
		}
	}
	for _, kc := range f.antiKeys {
		if v, ok := nd.labels[kc.key]; ok && f.existingAnti[topologyPair{kc.key, v}] > 0 {
			return ReasonExistingAntiAffinityNotMatched, false
		}
	}
	return "", false
}

func (f *AffinityFilter) satisfiesAffinity(nd *Node) bool {
	podsExist := true
	for i := range f.terms.requiredAffinity {
		key := f.terms.requiredAffinity[i].topologyKey
		v, ok := nd.labels[key]
		if !ok {
			return false
		}
		if f.affinity[topologyPair{key, v}] <= 0 {
			podsExist = false
		}
	}
	if podsExist {
		return true
	}
	// The first pod of a group whose members must be together: nothing
	// matches anywhere yet, and the pod matches its own terms.
	return len(f.affinity) == 0 && matchesAll(f.terms.requiredAffinity, f.pod)
}
