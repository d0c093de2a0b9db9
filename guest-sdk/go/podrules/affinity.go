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

	existingAnti pairCounts // existing pods' required anti-affinity selecting the task
	affinity     pairCounts // pods matching all the task's required affinity terms
	anti         pairCounts // pods matching the task's required anti-affinity terms
}

// NewAffinityFilter builds the filter state for a task.
func NewAffinityFilter(idx *Index, t *caldera.Task) *AffinityFilter {
	f := &AffinityFilter{namespace: t.Namespace, labels: t.Labels, nsLabels: idx.namespaces[t.Namespace], Err: t.AffinityError}
	if f.Err != "" {
		return f
	}
	f.requiredAffinity = idx.resolve(required(t.PodAffinity))
	f.requiredAnti = idx.resolve(required(t.PodAntiAffinity))
	f.existingAnti, f.affinity, f.anti = pairCounts{}, pairCounts{}, pairCounts{}
	// A task without required terms of its own is kept off nodes only by
	// other pods' required anti-affinity.
	k := everyPod
	if len(f.requiredAffinity) == 0 && len(f.requiredAnti) == 0 {
		k = withRequiredAnti
	}
	f.start(idx, k, f.apply)
	return f
}

func (f *AffinityFilter) apply(p *Pod, d int64) {
	labels := f.idx.nodeLabels(p.Node)
	if p.Anti != nil {
		for i := range p.Anti.Required {
			t := &p.Anti.Required[i]
			if existingMatches(t, f.namespace, f.nsLabels, f.labels) {
				f.existingAnti.update(labels, t.TopologyKey, d)
			}
		}
	}
	if matchesAll(f.requiredAffinity, p.Namespace, p.Labels) {
		for i := range f.requiredAffinity {
			f.affinity.update(labels, f.requiredAffinity[i].key, d)
		}
	}
	for i := range f.requiredAnti {
		if t := &f.requiredAnti[i]; t.matches(p.Namespace, p.Labels) {
			f.anti.update(labels, t.key, d)
		}
	}
}

// CatchUp applies the placements and removals made since the last call;
// the filter answers from the state as of then, as kube-scheduler answers
// from the PreFilter state.
func (f *AffinityFilter) CatchUp() { f.catchUp(f.apply) }

// PassesAll reports whether Filter passes every node as the state stands:
// the task parses, has no required terms of its own, and no existing
// pod's required anti-affinity selects it. A caller may then skip Filter.
func (f *AffinityFilter) PassesAll() bool {
	return f.Err == "" && len(f.requiredAffinity) == 0 && len(f.requiredAnti) == 0 && len(f.existingAnti) == 0
}

// Filter returns the reason the node fails and whether that failure is
// unresolvable by preemption, or "" when it passes.
func (f *AffinityFilter) Filter(n *caldera.Node) (reason string, unresolvable bool) {
	if !f.satisfiesAffinity(n.Labels) {
		return ReasonAffinityRulesNotMatch, true
	}
	if len(f.anti) > 0 {
		for i := range f.requiredAnti {
			key := f.requiredAnti[i].key
			if v, ok := n.Labels[key]; ok && f.anti[topologyPair{key, v}] > 0 {
				return ReasonAntiAffinityRulesNotMatch, false
			}
		}
	}
	if len(f.existingAnti) > 0 {
		for k, v := range n.Labels {
			if f.existingAnti[topologyPair{k, v}] > 0 {
				return ReasonExistingAntiAffinityNotMatched, false
			}
		}
	}
	return "", false
}

func (f *AffinityFilter) satisfiesAffinity(labels map[string]string) bool {
	podsExist := true
	for i := range f.requiredAffinity {
		key := f.requiredAffinity[i].key
		v, ok := labels[key]
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
	return len(f.affinity) == 0 && matchesAll(f.requiredAffinity, f.namespace, f.labels)
}
