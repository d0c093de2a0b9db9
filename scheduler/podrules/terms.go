package podrules

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/sets"
)

// term is one pod affinity term, parsed as kube-scheduler's AffinityTerm:
// the namespaces named (the owning pod's own when neither namespaces nor a
// namespace selector is given), a selector on the labels of namespaces, and
// the pod label selector with matchLabelKeys and mismatchLabelKeys merged in.
type term struct {
	namespaces  sets.Set[string]
	nsSelector  labels.Selector
	selector    labels.Selector
	topologyKey string
	weight      int32
}

// matches reports whether the term selects pod, whose namespace has the
// given labels.
func (t *term) matches(pod *v1.Pod, nsLabels labels.Set) bool {
	if t.namespaces.Has(pod.Namespace) || t.nsSelector.Matches(nsLabels) {
		return t.selector.Matches(labels.Set(pod.Labels))
	}
	return false
}

// matchesAll reports whether pod matches every term; false for no terms.
// Namespace selectors are not consulted: the incoming pod's own terms have
// had them resolved into namespace names.
func matchesAll(terms []term, pod *v1.Pod) bool {
	if len(terms) == 0 {
		return false
	}
	for i := range terms {
		if !terms[i].matches(pod, nil) {
			return false
		}
	}
	return true
}

func newTerm(pod *v1.Pod, t *v1.PodAffinityTerm, weight int32) (term, error) {
	sel, err := metav1.LabelSelectorAsSelector(t.LabelSelector)
	if err != nil {
		return term{}, err
	}
	sel, err = withLabelKeys(sel, pod.Labels, t.MatchLabelKeys, t.MismatchLabelKeys)
	if err != nil {
		return term{}, err
	}
	nsSel, err := metav1.LabelSelectorAsSelector(t.NamespaceSelector)
	if err != nil {
		return term{}, err
	}
	ns := sets.New[string]()
	if len(t.Namespaces) == 0 && t.NamespaceSelector == nil {
		ns.Insert(pod.Namespace)
	} else {
		ns.Insert(t.Namespaces...)
	}
	return term{namespaces: ns, nsSelector: nsSel, selector: sel, topologyKey: t.TopologyKey, weight: weight}, nil
}

// withLabelKeys adds, for each matchLabelKeys key the pod carries, "key in
// (value)", and for each mismatchLabelKeys key "key notin (value)". The
// API server merges them into the selector when it admits the pod; doing it
// again here only repeats a requirement, and covers pods that were never
// admitted by an API server (the simulator's).
func withLabelKeys(sel labels.Selector, podLabels map[string]string, match, mismatch []string) (labels.Selector, error) {
	add := func(keys []string, op selection.Operator) error {
		for _, k := range keys {
			v, ok := podLabels[k]
			if !ok {
				continue
			}
			r, err := labels.NewRequirement(k, op, []string{v})
			if err != nil {
				return err
			}
			sel = sel.Add(*r)
		}
		return nil
	}
	if err := add(match, selection.In); err != nil {
		return nil, err
	}
	if err := add(mismatch, selection.NotIn); err != nil {
		return nil, err
	}
	return sel, nil
}

func parseTerms(pod *v1.Pod, in []v1.PodAffinityTerm) ([]term, error) {
	if len(in) == 0 {
		return nil, nil
	}
	out := make([]term, 0, len(in))
	for i := range in {
		t, err := newTerm(pod, &in[i], 0)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func parseWeighted(pod *v1.Pod, in []v1.WeightedPodAffinityTerm) ([]term, error) {
	if len(in) == 0 {
		return nil, nil
	}
	out := make([]term, 0, len(in))
	for i := range in {
		t, err := newTerm(pod, &in[i].PodAffinityTerm, in[i].Weight)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// podTerms are a pod's four kinds of affinity terms.
type podTerms struct {
	requiredAffinity, requiredAnti   []term
	preferredAffinity, preferredAnti []term
}

func (t *podTerms) any() bool {
	return len(t.requiredAffinity)+len(t.requiredAnti)+len(t.preferredAffinity)+len(t.preferredAnti) > 0
}

// parsePodTerms parses a pod's terms as kube-scheduler's PodInfo does: a
// list that fails to parse is left empty and the error says which it was;
// the others are kept.
func parsePodTerms(pod *v1.Pod) (podTerms, error) {
	var out podTerms
	aff := pod.Spec.Affinity
	if aff == nil || (aff.PodAffinity == nil && aff.PodAntiAffinity == nil) {
		return out, nil
	}
	var errs []error
	collect := func(dst *[]term, name string, ts []term, err error) {
		if err != nil {
			errs = append(errs, prefixed(name, err))
			return
		}
		*dst = ts
	}
	if a := aff.PodAffinity; a != nil {
		ts, err := parseTerms(pod, a.RequiredDuringSchedulingIgnoredDuringExecution)
		collect(&out.requiredAffinity, "requiredAffinityTerms", ts, err)
	}
	if a := aff.PodAntiAffinity; a != nil {
		ts, err := parseTerms(pod, a.RequiredDuringSchedulingIgnoredDuringExecution)
		collect(&out.requiredAnti, "requiredAntiAffinityTerms", ts, err)
	}
	if a := aff.PodAffinity; a != nil {
		ts, err := parseWeighted(pod, a.PreferredDuringSchedulingIgnoredDuringExecution)
		collect(&out.preferredAffinity, "preferredAffinityTerms", ts, err)
	}
	if a := aff.PodAntiAffinity; a != nil {
		ts, err := parseWeighted(pod, a.PreferredDuringSchedulingIgnoredDuringExecution)
		collect(&out.preferredAnti, "preferredAntiAffinityTerms", ts, err)
	}
	return out, utilerrors.NewAggregate(errs)
}

type prefixedError struct {
	prefix string
	err    error
}

func (e prefixedError) Error() string { return e.prefix + ": " + e.err.Error() }
func (e prefixedError) Unwrap() error { return e.err }

func prefixed(p string, err error) error { return prefixedError{p, err} }
