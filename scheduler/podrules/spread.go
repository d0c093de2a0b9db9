package podrules

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

// Reasons of the PodTopologySpread filter, kube-scheduler's words.
const (
	ReasonSpreadConstraintsNotMatch = "node(s) didn't match pod topology spread constraints"
	ReasonSpreadMissingLabel        = ReasonSpreadConstraintsNotMatch + " (missing required label)"
)

// constraint is one topology spread constraint with kube-scheduler's
// defaults filled in: minDomains 1, nodeAffinityPolicy Honor,
// nodeTaintsPolicy Ignore, matchLabelKeys merged into the selector.
type constraint struct {
	maxSkew       int32
	key           string
	selector      labels.Selector
	minDomains    int32
	honorAffinity bool
	honorTaints   bool
}

// constraintsOf returns the pod's constraints of one kind (DoNotSchedule
// for the filter, ScheduleAnyway for the score).
func constraintsOf(pod *v1.Pod, action v1.UnsatisfiableConstraintAction) ([]constraint, error) {
	var out []constraint
	for i := range pod.Spec.TopologySpreadConstraints {
		c := &pod.Spec.TopologySpreadConstraints[i]
		if c.WhenUnsatisfiable != action {
			continue
		}
		tc, err := newConstraint(pod, c)
		if err != nil {
			return nil, err
		}
		out = append(out, tc)
	}
	return out, nil
}

// newConstraint parses one of the pod's constraints.
func newConstraint(pod *v1.Pod, c *v1.TopologySpreadConstraint) (constraint, error) {
	sel, err := metav1.LabelSelectorAsSelector(c.LabelSelector)
	if err != nil {
		return constraint{}, err
	}
	if sel, err = withLabelKeys(sel, pod.Labels, c.MatchLabelKeys, nil); err != nil {
		return constraint{}, err
	}
	tc := constraint{maxSkew: c.MaxSkew, key: c.TopologyKey, selector: sel, minDomains: 1, honorAffinity: true}
	if c.MinDomains != nil {
		tc.minDomains = *c.MinDomains
	}
	if c.NodeAffinityPolicy != nil {
		tc.honorAffinity = *c.NodeAffinityPolicy == v1.NodeInclusionPolicyHonor
	}
	if c.NodeTaintsPolicy != nil {
		tc.honorTaints = *c.NodeTaintsPolicy == v1.NodeInclusionPolicyHonor
	}
	return tc, nil
}

// constraintSources lists the pods that constraints' selectors can match.
func constraintSources(idx *Index, cs []constraint) []podSet {
	var src sources
	for i := range cs {
		src.add(idx.selecting(cs[i].selector))
	}
	return src.list()
}

// hasAllKeys reports whether a node carries every constraint's topology key.
func hasAllKeys(nodeLabels map[string]string, cs []constraint) bool {
	for i := range cs {
		if _, ok := nodeLabels[cs[i].key]; !ok {
			return false
		}
	}
	return true
}

// includes applies a constraint's node inclusion policies to a node.
func (c *constraint) includes(pod *v1.Pod, nd *Node, required nodeaffinity.RequiredNodeAffinity) bool {
	if nd.node == nil {
		return false
	}
	if c.honorAffinity {
		if ok, _ := required.Match(nd.node); !ok {
			return false
		}
	}
	if c.honorTaints {
		if _, untolerated := corev1helpers.FindMatchingUntoleratedTaint(nd.node.Spec.Taints, pod.Spec.Tolerations, doNotSchedule); untolerated {
			return false
		}
	}
	return true
}

func doNotSchedule(t *v1.Taint) bool {
	return t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute
}

// counted reports whether an existing pod counts for a constraint of a pod
// in namespace ns: kube-scheduler's countPodsMatchSelector, which never
// counts for an empty selector and skips terminating pods.
func (c *constraint) counted(p *v1.Pod, ns string) bool {
	return p.DeletionTimestamp == nil && p.Namespace == ns && !c.selector.Empty() && c.selector.Matches(labels.Set(p.Labels))
}

// domainCounts holds, for one topology key, the matching pods per domain
// (numbered by Index.domainsOf) and how many domains hold each count, so
// that the smallest count is known without a walk over the domains. Only
// the domains known (of a node whose pods count) take part in it.
type domainCounts struct {
	counts []int
	known  []bool
	nKnown int
	hist   map[int]int
	min    int
}

func newDomainCounts(n int) *domainCounts {
	return &domainCounts{counts: make([]int, n), known: make([]bool, n), hist: map[int]int{}}
}

// ensure makes a domain known with no pods.
func (d *domainCounts) ensure(id int32) {
	if d.known[id] {
		return
	}
	d.known[id] = true
	d.nKnown++
	d.hist[0]++
	d.min = 0
}

func (d *domainCounts) add(id int32, delta int) {
	if !d.known[id] {
		return
	}
	old := d.counts[id]
	n := old + delta
	d.counts[id] = n
	if d.hist[old]--; d.hist[old] == 0 {
		delete(d.hist, old)
	}
	d.hist[n]++
	switch {
	case n < d.min:
		d.min = n
	case old == d.min && d.hist[old] == 0:
		d.min = n
	}
}

// SpreadFilter is the PodTopologySpread filter's state for one template.
type SpreadFilter struct {
	follower
	pod *v1.Pod
	cs  []constraint
	// Err is the error reading the pod's constraints: the pod is then
	// unschedulable with it.
	Err error

	// eligible[c][node] says whether pods on the node count for
	// constraint c; domain[c][node] is the node's domain of c's key, -1
	// when the node lacks the key; counts[c] holds the domains of c's key
	// (shared by constraints on one key).
	eligible [][]bool
	domain   [][]int32
	counts   []*domainCounts
	// selfMatch[c] is 1 when constraint c's selector matches the pod itself.
	selfMatch []int
	// later[c] lists the constraints after c on the same key. On a node
	// where one of them counts, c's pods do not: kube-scheduler's
	// PreFilter keeps one count per node and domain, the last
	// constraint's (filtering.go calPreFilterState, tpCounts[pair] =
	// count).
	later [][]int
}

// NewSpreadFilter builds the filter state for a pod.
func NewSpreadFilter(idx *Index, pod *v1.Pod) *SpreadFilter {
	f := &SpreadFilter{pod: pod}
	cs, err := constraintsOf(pod, v1.DoNotSchedule)
	if err != nil {
		f.Err = err
		return f
	}
	f.cs = cs
	if len(cs) == 0 {
		return f
	}
	required := nodeaffinity.GetRequiredNodeAffinity(pod)
	byKey := map[string]*domainCounts{}
	f.eligible = make([][]bool, len(cs))
	f.domain = make([][]int32, len(cs))
	f.counts = make([]*domainCounts, len(cs))
	f.selfMatch = make([]int, len(cs))
	f.later = make([][]int, len(cs))
	self := labels.Set(pod.Labels)
	for i := range cs {
		key := cs[i].key
		kd := idx.domainsOf(key)
		if byKey[key] == nil {
			byKey[key] = newDomainCounts(kd.n)
		}
		f.counts[i] = byKey[key]
		f.domain[i] = kd.of
		for j := range i {
			if cs[j].key == key {
				f.later[j] = append(f.later[j], i)
			}
		}
		f.eligible[i] = make([]bool, len(idx.nodes))
		if cs[i].selector.Matches(self) {
			f.selfMatch[i] = 1
		}
	}
nodes:
	for ni, nd := range idx.nodes {
		for i := range cs {
			if f.domain[i][ni] < 0 {
				continue nodes // lacks a key: its pods count for none
			}
		}
		for i := range cs {
			if !cs[i].includes(pod, nd, required) {
				continue
			}
			f.eligible[i][ni] = true
			f.counts[i].ensure(f.domain[i][ni])
		}
	}
	f.start(idx, constraintSources(idx, cs), f.apply)
	return f
}

func (f *SpreadFilter) apply(p *Pod, d int64) {
	ni := p.node.index
	for i := range f.cs {
		if f.eligible[i][ni] && !f.shadowed(i, ni) && f.cs[i].counted(p.pod, f.pod.Namespace) {
			f.counts[i].add(f.domain[i][ni], int(d))
		}
	}
}

// shadowed reports whether a later constraint on c's key counts on the
// node, so that c's count there is not kept.
func (f *SpreadFilter) shadowed(c, node int) bool {
	for _, j := range f.later[c] {
		if f.eligible[j][node] {
			return true
		}
	}
	return false
}

// CatchUp applies the placements and removals made since the last call;
// the filter answers from the state as of then.
func (f *SpreadFilter) CatchUp() {
	if len(f.cs) > 0 {
		f.catchUp(f.apply)
	}
}

// Filter returns the reason the node fails and whether the failure is
// unresolvable, or "" when it passes.
func (f *SpreadFilter) Filter(nd *Node) (reason string, unresolvable bool) {
	if len(f.cs) == 0 {
		return "", false
	}
	for i := range f.cs {
		c := &f.cs[i]
		id := f.domain[i][nd.index]
		if id < 0 {
			return ReasonSpreadMissingLabel, true
		}
		dc := f.counts[i]
		minMatch := 0
		if dc.nKnown >= int(c.minDomains) {
			minMatch = dc.min
		}
		if dc.counts[id]+f.selfMatch[i]-minMatch > int(c.maxSkew) {
			return ReasonSpreadConstraintsNotMatch, false
		}
	}
	return "", false
}
