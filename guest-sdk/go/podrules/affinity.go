package podrules

import caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"

// Reasons of the InterPodAffinity filter, kube-scheduler's words.
const (
	ReasonAffinityRulesNotMatch          = "node(s) didn't match pod affinity rules"
	ReasonAntiAffinityRulesNotMatch      = "node(s) didn't match pod anti-affinity rules"
	ReasonExistingAntiAffinityNotMatched = "node(s) didn't satisfy existing pods anti-affinity rules"
)

// AffinityFilter is the InterPodAffinity filter's state for one template:
// kube-scheduler's PreFilter counts, kept current with the Index.
type AffinityFilter struct {
	follower
	namespace        string
	labels, nsLabels map[string]string
	requiredAffinity []term
	requiredAnti     []term
	// Err is the task's AffinityError: the task is then unschedulable.
	Err string

	existingAnti domainTally // existing pods' required anti-affinity selecting the task
	affinity     domainTally // pods matching all the task's required affinity terms
	anti         domainTally // pods matching the task's required anti-affinity terms
}

// NewAffinityFilter builds the filter state for a task.
func NewAffinityFilter(idx *Index, t *caldera.Task) *AffinityFilter {
	f := &AffinityFilter{namespace: t.Namespace, labels: t.Labels, nsLabels: idx.namespaces[t.Namespace], Err: t.AffinityError}
	if f.Err != "" {
		return f
	}
	f.requiredAffinity = idx.resolve(required(t.PodAffinity))
	f.requiredAnti = idx.resolve(required(t.PodAntiAffinity))
	f.existingAnti, f.affinity, f.anti = domainTally{idx: idx}, domainTally{idx: idx}, domainTally{idx: idx}
	// Existing pods' required anti-affinity, and pods the task's own
	// required terms can select.
	var src sources
	idx.requiredAnti.selectors(&src, t.Labels)
	src.everyTerm(idx, f.requiredAffinity)
	src.anyTerm(idx, f.requiredAnti)
	f.start(idx, src.list(), f)
	return f
}

func (f *AffinityFilter) apply(p *Pod, d int64) {
	if p.Anti != nil {
		for i := range p.Anti.Required {
			t := &p.Anti.Required[i]
			if existingMatches(t, f.namespace, f.nsLabels, f.labels) {
				f.existingAnti.update(p.Node, t.TopologyKey, d)
			}
		}
	}
	if matchesAll(f.requiredAffinity, p.Namespace, p.Labels) {
		for i := range f.requiredAffinity {
			f.affinity.update(p.Node, f.requiredAffinity[i].key, d)
		}
	}
	for i := range f.requiredAnti {
		if t := &f.requiredAnti[i]; t.matches(p.Namespace, p.Labels) {
			f.anti.update(p.Node, t.key, d)
		}
	}
}

// CatchUp applies the placements and removals made since the last call;
// the filter answers from the state as of then, as kube-scheduler answers
// from the PreFilter state.
func (f *AffinityFilter) CatchUp() { f.catchUp(f) }

// PassesAll reports whether Filter passes every node as the state stands:
// the task parses, has no required terms of its own, and no existing
// pod's required anti-affinity selects it. A caller may then skip Filter.
func (f *AffinityFilter) PassesAll() bool {
	return f.Err == "" && len(f.requiredAffinity) == 0 && len(f.requiredAnti) == 0 && f.existingAnti.nonzero == 0
}

// Filter returns the reason the node fails and whether that failure is
// unresolvable by preemption, or "" when it passes.
func (f *AffinityFilter) Filter(n *caldera.Node) (reason string, unresolvable bool) {
	if !f.satisfiesAffinity(n.Handle) {
		return ReasonAffinityRulesNotMatch, true
	}
	if f.anti.nonzero > 0 {
		for i := range f.requiredAnti {
			if f.anti.at(n.Handle, f.requiredAnti[i].key) > 0 {
				return ReasonAntiAffinityRulesNotMatch, false
			}
		}
	}
	for i := range f.existingAnti.keys {
		if kt := &f.existingAnti.keys[i]; kt.nonzero > 0 {
			if id := kt.of[n.Handle]; id >= 0 && kt.get(id) > 0 {
				return ReasonExistingAntiAffinityNotMatched, false
			}
		}
	}
	return "", false
}

func (f *AffinityFilter) satisfiesAffinity(node int32) bool {
	podsExist := true
	for i := range f.requiredAffinity {
		key := f.requiredAffinity[i].key
		if f.affinity.forKey(key).of[node] < 0 {
			return false
		}
		if f.affinity.at(node, key) <= 0 {
			podsExist = false
		}
	}
	if podsExist {
		return true
	}
	// The first pod of a group whose members must be together: nothing
	// matches anywhere yet, and the pod matches its own terms.
	return f.affinity.nonzero == 0 && matchesAll(f.requiredAffinity, f.namespace, f.labels)
}
