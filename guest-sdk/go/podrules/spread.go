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

// counted reports whether an existing pod counts for a constraint of a task
// in namespace ns: kube-scheduler's countPodsMatchSelector, which never
// counts for an empty selector and skips terminating pods.
func counted(c *caldera.SpreadConstraint, p *Pod, ns string) bool {
	return !p.Terminating && p.Namespace == ns && c.Selector != nil && len(c.Selector.Requirements) > 0 && c.Selector.Matches(p.Labels)
}

// domainCounts holds, for one topology key, the matching pods per domain
// and how many domains hold each count, so that the smallest count is
// known without a walk over the domains.
type domainCounts struct {
	byValue map[string]int
	hist    map[int]int
	min     int
}

func newDomainCounts() *domainCounts {
	return &domainCounts{byValue: map[string]int{}, hist: map[int]int{}}
}

// ensure makes a domain known with no pods.
func (d *domainCounts) ensure(v string) {
	if _, ok := d.byValue[v]; ok {
		return
	}
	d.byValue[v] = 0
	d.hist[0]++
	d.min = 0
}

func (d *domainCounts) add(v string, delta int) {
	old, ok := d.byValue[v]
	if !ok {
		return
	}
	n := old + delta
	d.byValue[v] = n
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
	// constraint c.
	eligible [][]bool
	byKey    map[string]*domainCounts
	// selfMatch[c] is 1 when constraint c's selector matches the task.
	selfMatch []int
}

// NewSpreadFilter builds the filter state for a task.
func NewSpreadFilter(idx *Index, t *caldera.Task) *SpreadFilter {
	f := &SpreadFilter{namespace: t.Namespace, labels: t.Labels}
	f.cs, f.Err = constraintsOf(t, "DoNotSchedule")
	if f.Err != "" || len(f.cs) == 0 {
		return f
	}
	f.byKey = map[string]*domainCounts{}
	f.eligible = make([][]bool, len(f.cs))
	f.selfMatch = make([]int, len(f.cs))
	for i, c := range f.cs {
		if c.Selector.Matches(f.labels) {
			f.selfMatch[i] = 1
		}
		if f.byKey[c.TopologyKey] == nil {
			f.byKey[c.TopologyKey] = newDomainCounts()
		}
		f.eligible[i] = make([]bool, len(idx.nodes))
	}
	for ni := range idx.nodes {
		n := &idx.nodes[ni]
		if !hasAllKeys(n.Labels, f.cs) {
			continue
		}
		for i, c := range f.cs {
			if includes(c, t, n) {
				f.eligible[i][ni] = true
				f.byKey[c.TopologyKey].ensure(n.Labels[c.TopologyKey])
			}
		}
	}
	f.start(idx, everyPod, f.apply)
	return f
}

func (f *SpreadFilter) apply(p *Pod, d int64) {
	labels := f.idx.nodeLabels(p.Node)
	for i, c := range f.cs {
		if f.eligible[i][p.Node] && counted(c, p, f.namespace) {
			f.byKey[c.TopologyKey].add(labels[c.TopologyKey], int(d))
		}
	}
}

// CatchUp applies the placements and removals made since the last call.
func (f *SpreadFilter) CatchUp() {
	if len(f.cs) > 0 {
		f.catchUp(f.apply)
	}
}

// PassesAll reports whether Filter passes every node: the task parses and
// has no DoNotSchedule constraint.
func (f *SpreadFilter) PassesAll() bool { return f.Err == "" && len(f.cs) == 0 }

// Filter returns the reason the node fails and whether the failure is
// unresolvable, or "" when it passes.
func (f *SpreadFilter) Filter(n *caldera.Node) (reason string, unresolvable bool) {
	for i, c := range f.cs {
		v, ok := n.Labels[c.TopologyKey]
		if !ok {
			return ReasonSpreadMissingLabel, true
		}
		dc := f.byKey[c.TopologyKey]
		minMatch := 0
		if len(dc.byValue) >= int(c.MinDomains) {
			minMatch = dc.min
		}
		if dc.byValue[v]+f.selfMatch[i]-minMatch > int(c.MaxSkew) {
			return ReasonSpreadConstraintsNotMatch, false
		}
	}
	return "", false
}
