package podrules

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// A state built mid-session walks the pods counted so far once. Most
// states change only for a few of them: a gang's anti-affinity and spread
// selectors pick its own pods by label, and a pod with no terms of its own
// is changed only by pods that have terms. sources collects the sets of
// pods that can change a state, so that its start walks those instead of
// every pod; catching up still applies every logged change, which the
// state's apply filters as before.
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

// selecting returns the counted pods sel can match: none for a selector
// that matches nothing, else those carrying the label of the equality
// requirement with the fewest of them; ok is false when sel has no
// equality requirement and any pod may match.
func (idx *Index) selecting(sel labels.Selector) (set podSet, ok bool) {
	reqs, selectable := sel.Requirements()
	if !selectable {
		return nil, true
	}
	for _, r := range reqs {
		lp, eq := equality(r)
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
func equality(r labels.Requirement) (labelPair, bool) {
	switch r.Operator() {
	case selection.Equals, selection.DoubleEquals, selection.In:
	default:
		return labelPair{}, false
	}
	values := r.Values()
	if values.Len() != 1 {
		return labelPair{}, false
	}
	return labelPair{r.Key(), values.UnsortedList()[0]}, true
}

// termIndex holds the counted pods whose terms of one kind may select
// other pods, by a label a selected pod must carry: a pod whose every
// term demands a label is filed under each of those labels, any other in
// unlabelled. The pods whose terms can select a given pod are then those
// filed under its labels, and the unlabelled.
type termIndex struct {
	byLabel    map[labelPair]podSet
	unlabelled podSet
}

func newTermIndex() termIndex {
	return termIndex{byLabel: map[labelPair]podSet{}, unlabelled: podSet{}}
}

func (ti *termIndex) add(p *Pod, kinds ...[]term) {
	var pairs []labelPair
	for _, terms := range kinds {
		for i := range terms {
			reqs, selectable := terms[i].selector.Requirements()
			if !selectable {
				continue // selects nothing
			}
			found := false
			for _, r := range reqs {
				if lp, eq := equality(r); eq {
					pairs = append(pairs, lp)
					found = true
					break
				}
			}
			if !found {
				ti.unlabelled[p] = struct{}{}
				return
			}
		}
	}
	for _, lp := range pairs {
		set := ti.byLabel[lp]
		if set == nil {
			set = podSet{}
			ti.byLabel[lp] = set
		}
		set[p] = struct{}{}
	}
}

// remove takes a pod out; kinds must be those add was given.
func (ti *termIndex) remove(p *Pod, kinds ...[]term) {
	delete(ti.unlabelled, p)
	for _, terms := range kinds {
		for i := range terms {
			reqs, _ := terms[i].selector.Requirements()
			for _, r := range reqs {
				if lp, eq := equality(r); eq {
					delete(ti.byLabel[lp], p)
					break
				}
			}
		}
	}
}

// selectors adds to src the pods whose terms may select pod.
func (ti *termIndex) selectors(src *sources, pod *v1.Pod) {
	src.add(ti.unlabelled, true)
	for k, v := range pod.Labels {
		src.add(ti.byLabel[labelPair{k, v}], true)
	}
}
