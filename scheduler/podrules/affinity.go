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

// domainTally counts pods per topology domain, key by key, the domains
// numbered by Index.domainsOf, so that a node's count is read by its index.
type domainTally struct {
	idx  *Index
	keys []keyTally
	// nonzero is how many domains, over all keys, hold a count.
	nonzero int
}

type keyTally struct {
	key     string
	of      []int32 // node index -> domain number, -1 without the key
	counts  []int64
	nonzero int
}

// forKey returns the tally of key, made on first use; a filter has a few
// keys, so a slice beats a map.
func (t *domainTally) forKey(key string) *keyTally {
	for i := range t.keys {
		if t.keys[i].key == key {
			return &t.keys[i]
		}
	}
	kd := t.idx.domainsOf(key)
	t.keys = append(t.keys, keyTally{key: key, of: kd.of, counts: make([]int64, kd.n)})
	return &t.keys[len(t.keys)-1]
}

// update adds d to the node's domain of key; a node without the key has
// no domain and counts nothing.
func (t *domainTally) update(nd *Node, key string, d int64) {
	kt := t.forKey(key)
	id := kt.of[nd.index]
	if id < 0 {
		return
	}
	before := kt.counts[id]
	kt.counts[id] += d
	switch after := kt.counts[id]; {
	case before == 0 && after != 0:
		kt.nonzero++
		t.nonzero++
	case before != 0 && after == 0:
		kt.nonzero--
		t.nonzero--
	}
}

// at returns the count of the node's domain of key, 0 when it lacks the
// key or nothing was counted for key.
func (t *domainTally) at(nd *Node, key string) int64 {
	for i := range t.keys {
		if kt := &t.keys[i]; kt.key == key {
			if id := kt.of[nd.index]; id >= 0 {
				return kt.counts[id]
			}
			return 0
		}
	}
	return 0
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

	existingAnti domainTally // existing pods' required anti-affinity matching the pod
	affinity     domainTally // pods matching all the pod's required affinity terms
	anti         domainTally // pods matching the pod's required anti-affinity terms
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
	f.existingAnti, f.affinity, f.anti = domainTally{idx: idx}, domainTally{idx: idx}, domainTally{idx: idx}
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
			f.existingAnti.update(p.node, t.topologyKey, d)
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
	if f.anti.nonzero > 0 {
		for i := range f.terms.requiredAnti {
			if f.anti.at(nd, f.terms.requiredAnti[i].topologyKey) > 0 {
				return ReasonAntiAffinityRulesNotMatch, false
			}
		}
	}
	for i := range f.existingAnti.keys {
		if kt := &f.existingAnti.keys[i]; kt.nonzero > 0 {
			if id := kt.of[nd.index]; id >= 0 && kt.counts[id] > 0 {
				return ReasonExistingAntiAffinityNotMatched, false
			}
		}
	}
	return "", false
}

func (f *AffinityFilter) satisfiesAffinity(nd *Node) bool {
	podsExist := true
	for i := range f.terms.requiredAffinity {
		key := f.terms.requiredAffinity[i].topologyKey
		if _, ok := nd.labels[key]; !ok {
			return false
		}
		if f.affinity.at(nd, key) <= 0 {
			podsExist = false
		}
	}
	if podsExist {
		return true
	}
	// The first pod of a group whose members must be together: nothing
	// matches anywhere yet, and the pod matches its own terms.
	return f.affinity.nonzero == 0 && matchesAll(f.terms.requiredAffinity, f.pod)
}
