package podrules

import caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"

// NodeLocalClasses gives each task of the view the node-local class of
// its InterPodAffinity (when affinity) and PodTopologySpread (when spread)
// filters for the session (caldera.NodeLocalClasser): whether a task's
// verdict on a node can depend on anything but that node, its own shape
// and, where another pod's anti-affinity can select it, its namespace and
// labels. Every pod that can be counted in the session is in the view
// (its tasks and the nodes' other pods), so this holds for the whole
// session:
//
//   - -1 for a task whose own rules read other nodes: required affinity
//     (the group's first pod passes only while nothing matches anywhere),
//     a DoNotSchedule spread constraint (the skew compares domains), an
//     anti-affinity term on a topology key whose domains span several
//     nodes, or rules that do not parse; and for a task that such a term
//     of another pod can select.
//   - 0 for a task whose verdicts depend on its shape alone.
//   - c > 0 for a task that another pod's anti-affinity term can select
//     on a key of one node per domain: the verdict then reads the task's
//     namespace and labels, and c numbers them.
//
// v is the view the Index was made from; classes has one entry per task
// handle.
func (idx *Index) NodeLocalClasses(v *caldera.View, affinity, spread bool, classes []int32) {
	var anti antiTerms
	if affinity {
		anti = collectAntiTerms(v)
	}
	var labelled caldera.ByKey[int32]
	var key []byte
	var scratch KeyScratch
	next := int32(1)
	// Tasks of a job follow each other: their namespace's labels are
	// looked up once (a lookup by string allocates in TinyGo).
	var ns string
	var nsLabels map[string]string
	for i := range v.Tasks {
		t := &v.Tasks[i]
		classes[i] = -1
		if i == 0 || t.Namespace != ns {
			ns, nsLabels = t.Namespace, v.Namespaces[t.Namespace]
		}
		if !idx.ownRulesNodeLocal(t, affinity, spread) {
			continue
		}
		selected, local := false, true
		if affinity {
			selected, local = anti.selecting(idx, t, nsLabels)
		}
		switch {
		case !local:
		case !selected:
			classes[i] = 0
		default:
			key = scratch.appendMap(caldera.AppendKeyString(key[:0], t.Namespace), t.Labels)
			c, ok := labelled.Get(key)
			if !ok {
				c, next = next, next+1
				labelled.Put(key, c)
			}
			classes[i] = c
		}
	}
}

// ownRulesNodeLocal reports whether a task's own terms and constraints
// read the node alone.
func (idx *Index) ownRulesNodeLocal(t *caldera.Task, affinity, spread bool) bool {
	if affinity {
		if t.AffinityError != "" || len(required(t.PodAffinity)) > 0 {
			return false
		}
		for _, term := range required(t.PodAntiAffinity) {
			if !idx.domainsOf(term.TopologyKey).onePerNode {
				return false
			}
		}
	}
	if spread {
		for i := range t.SpreadConstraints {
			if t.SpreadConstraints[i].WhenUnsatisfiable == "DoNotSchedule" {
				return false
			}
		}
	}
	return true
}

// antiTerms are the required anti-affinity terms of every pod of the
// view, filed by a label a pod they select must carry (the first
// single-value In requirement), or unlabelled.
type antiTerms struct {
	byLabel    map[labelHash][]*caldera.PodAffinityTerm
	unlabelled []*caldera.PodAffinityTerm
}

func collectAntiTerms(v *caldera.View) antiTerms {
	a := antiTerms{byLabel: map[labelHash][]*caldera.PodAffinityTerm{}}
	for i := range v.Tasks {
		a.add(v.Tasks[i].PodAntiAffinity)
	}
	for i := range v.Nodes {
		for j := range v.Nodes[i].Others {
			a.add(v.Nodes[i].Others[j].PodAntiAffinity)
		}
	}
	return a
}

func (a *antiTerms) add(aff *caldera.PodAffinity) {
	for i, term := range required(aff) {
		if term.Selector == nil {
			continue // selects nothing
		}
		if lp, ok := demandedBy(term.Selector); ok {
			a.byLabel[lp] = append(a.byLabel[lp], &aff.Required[i])
		} else {
			a.unlabelled = append(a.unlabelled, &aff.Required[i])
		}
	}
}

// selecting reports whether some term can select the task, and whether
// every such term's key has one node per domain.
func (a *antiTerms) selecting(idx *Index, t *caldera.Task, nsLabels map[string]string) (selected, local bool) {
	selected, local = a.check(idx, a.unlabelled, t, nsLabels)
	for key, value := range t.Labels {
		if !local {
			break
		}
		s, l := a.check(idx, a.byLabel[hashLabel(key, value)], t, nsLabels)
		selected, local = selected || s, l
	}
	return selected, local
}

// check is selecting over some of the terms.
func (a *antiTerms) check(idx *Index, terms []*caldera.PodAffinityTerm, t *caldera.Task, nsLabels map[string]string) (selected, local bool) {
	for _, term := range terms {
		if existingMatches(term, t.Namespace, nsLabels, t.Labels) {
			selected = true
			if !idx.domainsOf(term.TopologyKey).onePerNode {
				return true, false
			}
		}
	}
	return selected, true
}
