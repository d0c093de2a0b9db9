package podrules

import (
	"slices"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

// term is one of the incoming pod's affinity terms with its namespace
// selector resolved, as kube-scheduler resolves the incoming pod's: the
// namespaces it names or selects now, or every namespace.
type term struct {
	namespaces    []string
	allNamespaces bool
	selector      *caldera.Selector
	key           string
	weight        int32
}

// matches reports whether the term selects a pod.
func (t *term) matches(namespace string, labels map[string]string) bool {
	return (t.allNamespaces || slices.Contains(t.namespaces, namespace)) && t.selector.Matches(labels)
}

// matchesAll reports whether a pod matches every term; false for none.
func matchesAll(terms []term, namespace string, labels map[string]string) bool {
	if len(terms) == 0 {
		return false
	}
	for i := range terms {
		if !terms[i].matches(namespace, labels) {
			return false
		}
	}
	return true
}

// resolve resolves required terms' namespace selectors against the
// namespaces' labels.
func (idx *Index) resolve(in []caldera.PodAffinityTerm) []term {
	out := make([]term, len(in))
	for i := range in {
		out[i] = idx.resolveTerm(&in[i], 0)
	}
	return out
}

func (idx *Index) resolveWeighted(in []caldera.WeightedPodAffinityTerm) []term {
	out := make([]term, len(in))
	for i := range in {
		out[i] = idx.resolveTerm(&in[i].Term, in[i].Weight)
	}
	return out
}

func (idx *Index) resolveTerm(t *caldera.PodAffinityTerm, weight int32) term {
	out := term{selector: t.Selector, key: t.TopologyKey, weight: weight, namespaces: t.Namespaces}
	switch sel := t.NamespaceSelector; {
	case sel == nil:
	case len(sel.Requirements) == 0:
		out.allNamespaces = true
	default:
		for name, labels := range idx.namespaces {
			if sel.Matches(labels) && !slices.Contains(out.namespaces, name) {
				out.namespaces = append(slices.Clip(out.namespaces), name)
			}
		}
	}
	return out
}

// existingMatches reports whether an existing pod's (unresolved) term
// selects the incoming pod, whose namespace has the labels nsLabels.
func existingMatches(t *caldera.PodAffinityTerm, namespace string, nsLabels, labels map[string]string) bool {
	inNamespace := slices.Contains(t.Namespaces, namespace) || (t.NamespaceSelector != nil && t.NamespaceSelector.Matches(nsLabels))
	return inNamespace && t.Selector.Matches(labels)
}

func required(a *caldera.PodAffinity) []caldera.PodAffinityTerm {
	if a == nil {
		return nil
	}
	return a.Required
}

func preferred(a *caldera.PodAffinity) []caldera.WeightedPodAffinityTerm {
	if a == nil {
		return nil
	}
	return a.Preferred
}

// topologyPair is one topology domain: a node label and its value.
type topologyPair struct{ key, value string }
