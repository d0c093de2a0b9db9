package podrules

import caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"

// Reasons of the PodTopologySpread filter, kube-scheduler's words.
const (
	ReasonSpreadConstraintsNotMatch = "node(s) didn't match pod topology spread constraints"
	ReasonSpreadMissingLabel        = ReasonSpreadConstraintsNotMatch + " (missing required label)"
)

// hostnameKey is the well-known hostname label, whose domains are nodes.
const hostnameKey = "kubernetes.io/hostname"

// constraintsOf returns a task's constraints of one kind (DoNotSchedule for
// the filter, ScheduleAnyway for the score) in spec order, or the error of
// the first of that kind that does not parse.
func constraintsOf(t *caldera.Task, kind string) ([]*caldera.SpreadConstraint, string) {
	var out []*caldera.SpreadConstraint
	for i := range t.SpreadConstraints {
		c := &t.SpreadConstraints[i]
		if c.WhenUnsatisfiable != kind {
			continue
		}
		if c.Error != "" {
			return nil, c.Error
		}
		out = append(out, c)
	}
	return out, ""
}

// hasAllKeys reports whether a node carries every constraint's key.
func hasAllKeys(labels map[string]string, cs []*caldera.SpreadConstraint) bool {
	for _, c := range cs {
		if _, ok := labels[c.TopologyKey]; !ok {
			return false
		}
	}
	return true
}

// includes applies a constraint's node inclusion policies to a node.
func includes(c *caldera.SpreadConstraint, t *caldera.Task, n *caldera.Node) bool {
	if c.NodeAffinityPolicy == "Honor" && !t.MatchesRequiredNodeAffinity(n) {
		return false
	}
	if c.NodeTaintsPolicy == "Honor" {
		for i := range n.Taints {
			taint := &n.Taints[i]
			if (taint.Effect == "NoSchedule" || taint.Effect == "NoExecute") && !caldera.ToleratesAny(t.Tolerations, taint) {
				return false
			}
		}
	}
	return true
}

// policiesExclude reports whether a constraint's node inclusion policies
// can leave out a node that carries every key: its task's required node
// affinity when the policy honours it, or taints.
func policiesExclude(t *caldera.Task, cs []*caldera.SpreadConstraint) bool {
	affinity := len(t.NodeSelector) > 0 || (t.NodeAffinity != nil && t.NodeAffinity.Required != nil)
	for _, c := range cs {
		if (c.NodeAffinityPolicy == "Honor" && affinity) || c.NodeTaintsPolicy == "Honor" {
			return true
		}
	}
	return false
}

// keysEligibility is, for one list of constraint keys, which nodes carry
// them all and the domains of each key on those nodes.
type keysEligibility struct {
	carrying []bool
	domains  [][]int32
}

// eligibleFor returns the nodes and domains of the constraints' keys,
// made once per session and list of keys; callers only read them.
func (idx *Index) eligibleFor(cs []*caldera.SpreadConstraint) *keysEligibility {
	key := ""
	for _, c := range cs {
		key += c.TopologyKey + "\x00"
	}
	if e, ok := idx.eligible[key]; ok {
		return e
	}
	e := &keysEligibility{carrying: make([]bool, len(idx.nodes)), domains: make([][]int32, len(cs))}
	of := make([][]int32, len(cs))
	seen := make([][]bool, len(cs))
	for i, c := range cs {
		kd := idx.domainsOf(c.TopologyKey)
		of[i], seen[i] = kd.of, make([]bool, kd.n)
	}
nodes:
	for ni := range idx.nodes {
		for i := range cs {
			if of[i][ni] < 0 {
				continue nodes
			}
		}
		e.carrying[ni] = true
		for i := range cs {
			if id := of[i][ni]; !seen[i][id] {
				seen[i][id] = true
				e.domains[i] = append(e.domains[i], id)
			}
		}
	}
	if idx.eligible == nil {
		idx.eligible = map[string]*keysEligibility{}
	}
	idx.eligible[key] = e
	return e
}

// counted reports whether an existing pod counts for a constraint of a task
// in namespace ns: kube-scheduler's countPodsMatchSelector, which never
// counts for an empty selector and skips terminating pods.
func counted(c *caldera.SpreadConstraint, p *Pod, ns string) bool {
	return !p.Terminating && p.Namespace == ns && c.Selector != nil && len(c.Selector.Requirements) > 0 && c.Selector.Matches(p.Labels)
}

// domainCounts holds, for one topology key, the matching pods per domain
// (numbered by Index.domainsOf) and how many domains hold each count, so
// that the smallest count is known without a walk over the domains. Only
// the domains known (of a node whose pods count) take part in it.
type domainCounts struct {
	counts []int32
	known  []bool
	nKnown int
	hist   map[int32]int32
	min    int32
}

func newDomainCounts(n int) *domainCounts {
	return &domainCounts{counts: make([]int32, n), known: make([]bool, n), hist: map[int32]int32{}}
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

func (d *domainCounts) add(id int32, delta int32) {
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
	namespace string
	labels    map[string]string
	cs        []*caldera.SpreadConstraint
	// Err is the error reading the task's constraints: the task is then
	// unschedulable with it.
	Err string

	// eligible[c][node] says whether pods on the node count for
	// constraint c; domain[c][node] is the node's domain of c's key, -1
	// when the node lacks it; counts[c] holds the domains of c's key
	// (shared by constraints on one key).
	eligible [][]bool
	domain   [][]int32
	names    [][]string // names[c][id]: the value of c's key numbered id
	counts   []*domainCounts
	// selfMatch[c] is 1 when constraint c's selector matches the task.
	selfMatch []int32
	// later[c] lists the constraints after c on the same key: on a node
	// where one of them counts, c's pods do not, as kube-scheduler's
	// PreFilter keeps the last constraint's count per node and domain.
	later [][]int
}

// NewSpreadFilter builds the filter state for a task.
func NewSpreadFilter(idx *Index, t *caldera.Task) *SpreadFilter {
	f := &SpreadFilter{namespace: t.Namespace, labels: t.Labels}
	f.cs, f.Err = constraintsOf(t, "DoNotSchedule")
	if f.Err != "" || len(f.cs) == 0 {
		return f
	}
	n := len(f.cs)
	f.eligible, f.domain, f.names = make([][]bool, n), make([][]int32, n), make([][]string, n)
	f.counts, f.selfMatch = make([]*domainCounts, n), make([]int32, n)
	var src sources
	for i, c := range f.cs {
		if c.Selector.Matches(f.labels) {
			f.selfMatch[i] = 1
		}
		kd := idx.domainsOf(c.TopologyKey)
		f.domain[i], f.names[i] = kd.of, kd.names
		for j := range i {
			if f.cs[j].TopologyKey == c.TopologyKey {
				f.counts[i] = f.counts[j]
				if f.later == nil {
					f.later = make([][]int, n)
				}
				f.later[j] = append(f.later[j], i)
			}
		}
		if f.counts[i] == nil {
			f.counts[i] = newDomainCounts(kd.n)
		}
		src.add(idx.selecting(c.Selector))
	}
	if !policiesExclude(t, f.cs) {
		// Every node with the keys counts: the nodes and domains are the
		// same for every template with these keys.
		e := idx.eligibleFor(f.cs)
		for i := range f.cs {
			f.eligible[i] = e.carrying
			for _, id := range e.domains[i] {
				f.counts[i].ensure(id)
			}
		}
		f.start(idx, src.list(), f)
		return f
	}
	for i := range f.cs {
		f.eligible[i] = make([]bool, len(idx.nodes))
	}
nodes:
	for ni := range idx.nodes {
		for i := range f.cs {
			if f.domain[i][ni] < 0 {
				continue nodes // lacks a key: its pods count for none
			}
		}
		for i, c := range f.cs {
			if includes(c, t, &idx.nodes[ni]) {
				f.eligible[i][ni] = true
				f.counts[i].ensure(f.domain[i][ni])
			}
		}
	}
	f.start(idx, src.list(), f)
	return f
}

func (f *SpreadFilter) apply(p *Pod, d int64) {
	for i, c := range f.cs {
		if f.eligible[i][p.Node] && !f.shadowed(i, p.Node) && counted(c, p, f.namespace) {
			f.counts[i].add(f.domain[i][p.Node], int32(d))
		}
	}
}

// shadowed reports whether a later constraint on c's key counts on the
// node, so that c's count there is not kept.
func (f *SpreadFilter) shadowed(c int, node int32) bool {
	if f.later == nil {
		return false
	}
	for _, j := range f.later[c] {
		if f.eligible[j][node] {
			return true
		}
	}
	return false
}

// CatchUp applies the placements and removals made since the last call.
func (f *SpreadFilter) CatchUp() {
	if len(f.cs) > 0 {
		f.catchUp(f)
	}
}

// PassesAll reports whether Filter passes every node: the task parses and
// has no DoNotSchedule constraint.
func (f *SpreadFilter) PassesAll() bool { return f.Err == "" && len(f.cs) == 0 }

// Filter returns the reason the node fails and whether the failure is
// unresolvable, or "" when it passes.
func (f *SpreadFilter) Filter(n *caldera.Node) (reason string, unresolvable bool) {
	for i, c := range f.cs {
		id := f.domain[i][n.Handle]
		if id < 0 {
			return ReasonSpreadMissingLabel, true
		}
		dc := f.counts[i]
		var minMatch int32
		if dc.nKnown >= int(c.MinDomains) {
			minMatch = dc.min
		}
		if dc.counts[id]+f.selfMatch[i]-minMatch > c.MaxSkew {
			return ReasonSpreadConstraintsNotMatch, false
		}
	}
	return "", false
}
