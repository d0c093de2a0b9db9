package podrules

import caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"

// sources collects the sets of counted pods that can change a state, so
// that a state built mid-session walks those instead of every pod: a
// gang's anti-affinity and spread selectors pick its own pods by label,
// and a pod without terms of its own is changed only by pods whose terms
// can select it. Catching up still applies every logged change, which the
// state's apply filters.
type sources struct {
	sets []podSet
	// all: some part of the state may be changed by any pod.
	all bool
}

// add adds the pods of set; ok false means any pod.
func (s *sources) add(set podSet, ok bool) {
	switch {
	case !ok:
		s.all = true
	case len(set) > 0:
		s.sets = append(s.sets, set)
	}
}

// anyTerm adds the pods that can match any of the terms.
func (s *sources) anyTerm(idx *Index, terms []term) {
	for i := range terms {
		s.add(idx.selecting(terms[i].selector))
	}
}

// everyTerm adds the pods that can match all of the terms: those that can
// match the one term with the fewest candidates.
func (s *sources) everyTerm(idx *Index, terms []term) {
	if len(terms) == 0 {
		return
	}
	var best podSet
	found := false
	for i := range terms {
		set, ok := idx.selecting(terms[i].selector)
		if ok && (!found || len(set) < len(best)) {
			best, found = set, true
		}
	}
	s.add(best, found)
}

// list is what Index.eachPod walks: nil for every pod.
func (s *sources) list() []podSet {
	if s.all {
		return nil
	}
	if s.sets == nil {
		return []podSet{}
	}
	return s.sets
}

// selecting returns the counted pods sel can match: none for a nil
// selector, which matches nothing, else those carrying the label of the
// equality requirement with the fewest of them; ok is false when sel has
// no equality requirement and any pod may match.
func (idx *Index) selecting(sel *caldera.Selector) (set podSet, ok bool) {
	if sel == nil {
		return nil, true
	}
	for i := range sel.Requirements {
		lp, eq := equality(&sel.Requirements[i])
		if !eq {
			continue
		}
		candidates := idx.byLabel[lp]
		if !ok || len(candidates) < len(set) {
			set, ok = candidates, true
		}
	}
	return set, ok
}

// equality returns the one label a requirement demands, if it demands one.
func equality(r *caldera.NodeSelectorRequirement) (labelHash, bool) {
	if r.Operator != "In" || len(r.Values) != 1 {
		return 0, false
	}
	return hashLabel(r.Key, r.Values[0]), true
}

// termIndex holds the counted pods whose terms of one kind may select
// other pods, by a label a selected pod must carry: a pod whose every
// term demands a label is filed under each of those labels, any other in
// unlabelled. The pods whose terms can select a given pod are then those
// filed under its labels, and the unlabelled.
type termIndex struct {
	byLabel    map[labelHash]podSet
	unlabelled podSet
	scratch    []labelHash
}

func newTermIndex() termIndex {
	return termIndex{byLabel: map[labelHash]podSet{}, unlabelled: podSet{}}
}

// add files a pod by its terms: required ones, and the terms of two
// lists of weighted ones (the affinity score reads a pod's required
// affinity and preferred affinity and anti-affinity).
func (ti *termIndex) add(p *Pod, req []caldera.PodAffinityTerm, w1, w2 []caldera.WeightedPodAffinityTerm) {
	labels, all := ti.demands(req, w1, w2)
	if !all {
		ti.unlabelled[p] = struct{}{}
		return
	}
	for _, lp := range labels {
		set := ti.byLabel[lp]
		if set == nil {
			set = podSet{}
			ti.byLabel[lp] = set
		}
		set[p] = struct{}{}
	}
}

// remove takes a pod out; the terms must be those add was given.
func (ti *termIndex) remove(p *Pod, req []caldera.PodAffinityTerm, w1, w2 []caldera.WeightedPodAffinityTerm) {
	delete(ti.unlabelled, p)
	labels, _ := ti.demands(req, w1, w2)
	for _, lp := range labels {
		delete(ti.byLabel[lp], p)
	}
}

// demands returns the labels the terms' selectors demand, in scratch space
// reused by the next call, and whether every term that selects anything
// demands one; a nil selector selects nothing. No closures: TinyGo
// allocates those that capture.
func (ti *termIndex) demands(req []caldera.PodAffinityTerm, w1, w2 []caldera.WeightedPodAffinityTerm) ([]labelHash, bool) {
	out, all := ti.scratch[:0], true
	for i := range req {
		out, all = appendDemand(out, all, req[i].Selector)
	}
	for i := range w1 {
		out, all = appendDemand(out, all, w1[i].Term.Selector)
	}
	for i := range w2 {
		out, all = appendDemand(out, all, w2[i].Term.Selector)
	}
	ti.scratch = out
	return out, all
}

func appendDemand(out []labelHash, all bool, sel *caldera.Selector) ([]labelHash, bool) {
	if sel == nil {
		return out, all
	}
	if lp, ok := demandedBy(sel); ok {
		return append(out, lp), all
	}
	return out, false
}

// demandedBy returns the label of a selector's first equality requirement.
func demandedBy(sel *caldera.Selector) (labelHash, bool) {
	for i := range sel.Requirements {
		if lp, eq := equality(&sel.Requirements[i]); eq {
			return lp, true
		}
	}
	return 0, false
}

// selectors adds to src the pods whose terms may select a pod with these
// labels.
func (ti *termIndex) selectors(src *sources, labels map[string]string) {
	src.add(ti.unlabelled, true)
	for k, v := range labels {
		src.add(ti.byLabel[hashLabel(k, v)], true)
	}
}
