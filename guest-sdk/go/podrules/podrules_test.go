package podrules

import (
	"fmt"
	"testing"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

func sel(key string, values ...string) *caldera.Selector {
	return &caldera.Selector{Requirements: []caldera.NodeSelectorRequirement{{Key: key, Operator: "In", Values: values}}}
}

// view makes nodes n0..n(k-1), zone z(i%2), and one task per app label,
// each pending, with required hostname anti-affinity against its own app
// and a zone spread constraint of maxSkew 1.
func view(nodes int, apps ...string) *caldera.View {
	v := &caldera.View{Namespaces: caldera.NamespaceLabels{"ns": {"team": "a"}}}
	for i := range nodes {
		name := fmt.Sprintf("n%d", i)
		v.Nodes = append(v.Nodes, caldera.Node{Name: name, Handle: int32(i),
			Labels: map[string]string{hostnameKey: name, "zone": fmt.Sprintf("z%d", i%2)}})
	}
	for i, app := range apps {
		v.Tasks = append(v.Tasks, caldera.Task{Namespace: "ns", Name: fmt.Sprintf("t%d", i), Node: -1, Handle: int32(i),
			Labels: map[string]string{"app": app},
			PodAntiAffinity: &caldera.PodAffinity{Required: []caldera.PodAffinityTerm{
				{Selector: sel("app", app), Namespaces: []string{"ns"}, TopologyKey: hostnameKey}}},
			SpreadConstraints: []caldera.SpreadConstraint{{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: "DoNotSchedule",
				Selector: sel("app", app), MinDomains: 1, NodeAffinityPolicy: "Honor", NodeTaintsPolicy: "Ignore"}}})
	}
	return v
}

func place(idx *Index, v *caldera.View, task, node int32) {
	v.Tasks[task].Node = node
	idx.Add(&v.Tasks[task])
}

// Placements made after a state was built count once it catches up, and
// a removal takes them back: the answers are those of a fresh state.
func TestFiltersFollowPlacements(t *testing.T) {
	v := view(4, "db", "db", "db", "web")
	idx := NewIndex(v)
	aff := NewAffinityFilter(idx, &v.Tasks[1])
	spread := NewSpreadFilter(idx, &v.Tasks[1])
	place(idx, v, 0, 0)
	aff.CatchUp()
	spread.CatchUp()
	if r, u := aff.Filter(&v.Nodes[0]); r != ReasonAntiAffinityRulesNotMatch || u {
		t.Errorf("n0 after db placed there: %q %v, want anti-affinity, resolvable", r, u)
	}
	if r, _ := aff.Filter(&v.Nodes[1]); r != "" {
		t.Errorf("n1: %q, want pass", r)
	}
	// Zone z0 has one db pod, z1 none: a second in z0 skews by 2.
	if r, _ := spread.Filter(&v.Nodes[2]); r != ReasonSpreadConstraintsNotMatch {
		t.Errorf("n2 (zone z0): %q, want the spread reason", r)
	}
	if r, _ := spread.Filter(&v.Nodes[1]); r != "" {
		t.Errorf("n1 (zone z1): %q, want pass", r)
	}
	idx.Remove(&v.Tasks[0])
	aff.CatchUp()
	spread.CatchUp()
	if r, _ := aff.Filter(&v.Nodes[0]); r != "" {
		t.Errorf("n0 after the db pod left: %q, want pass", r)
	}
	if r, _ := spread.Filter(&v.Nodes[2]); r != "" {
		t.Errorf("n2 after the db pod left: %q, want pass", r)
	}
	// The other app is not affected by db pods; a node without the zone
	// label fails for good. Topology domains are numbered once per
	// session, so the node loses its label before the next session's
	// Index.
	place(idx, v, 0, 0)
	delete(v.Nodes[3].Labels, "zone")
	idx = NewIndex(v)
	web := NewSpreadFilter(idx, &v.Tasks[3])
	if r, _ := NewAffinityFilter(idx, &v.Tasks[3]).Filter(&v.Nodes[0]); r != "" {
		t.Errorf("web on n0: %q, want pass", r)
	}
	if r, u := web.Filter(&v.Nodes[3]); r != ReasonSpreadMissingLabel || !u {
		t.Errorf("web on a node without zone: %q %v, want the missing-label reason, unresolvable", r, u)
	}
}

// An existing pod's required anti-affinity keeps the task off its domain
// (symmetry), and a parse error is carried as kube-scheduler's text.
func TestExistingAntiAffinityAndErrors(t *testing.T) {
	v := view(2, "web")
	v.Nodes[1].Others = []caldera.Pod{{Namespace: "ns", Name: "guard", Labels: map[string]string{"app": "guard"},
		PodAntiAffinity: &caldera.PodAffinity{Required: []caldera.PodAffinityTerm{
			{Selector: sel("app", "web"), Namespaces: []string{"ns"}, TopologyKey: "zone"}}}}}
	idx := NewIndex(v)
	f := NewAffinityFilter(idx, &v.Tasks[0])
	if r, _ := f.Filter(&v.Nodes[1]); r != ReasonExistingAntiAffinityNotMatched {
		t.Errorf("n1: %q, want the existing pods' reason", r)
	}
	if r, _ := f.Filter(&v.Nodes[0]); r != "" {
		t.Errorf("n0 (other zone): %q, want pass", r)
	}
	v.Tasks[0].AffinityError = `requiredAffinityTerms: "Foo" is not a valid label selector operator`
	if f := NewAffinityFilter(idx, &v.Tasks[0]); f.Err != v.Tasks[0].AffinityError {
		t.Errorf("Err %q", f.Err)
	}
}

// Preferred anti-affinity scores the nodes away from matching pods,
// normalised over the candidates.
func TestAffinityScore(t *testing.T) {
	v := view(3, "db", "db")
	v.Tasks[1].PodAntiAffinity = &caldera.PodAffinity{Preferred: []caldera.WeightedPodAffinityTerm{
		{Weight: 10, Term: caldera.PodAffinityTerm{Selector: sel("app", "db"), Namespaces: []string{"ns"}, TopologyKey: "zone"}}}}
	idx := NewIndex(v)
	s := NewAffinityScore(idx, &v.Tasks[1], 1)
	place(idx, v, 0, 0)
	out := make([]int64, 3)
	if !s.Score([]*caldera.Node{&v.Nodes[0], &v.Nodes[1], &v.Nodes[2]}, out) {
		t.Fatal("no score")
	}
	if out[0] != 0 || out[1] != 100 || out[2] != 0 {
		t.Errorf("scores %v, want [0 100 0] (n0 and n2 share zone z0 with the db pod)", out)
	}
}

// Node-local classes: a task whose verdicts read only its node gets one,
// shared by tasks that another pod's hostname anti-affinity tells apart
// only by namespace and labels; rules that read other nodes get -1.
func TestNodeLocalClasses(t *testing.T) {
	v := view(4, "db", "db", "web", "plain", "zoned")
	v.Tasks[2].SpreadConstraints = nil // web: hostname anti-affinity only
	v.Tasks[0].SpreadConstraints, v.Tasks[1].SpreadConstraints = nil, nil
	v.Tasks[3].PodAntiAffinity, v.Tasks[3].SpreadConstraints = nil, nil
	v.Tasks[4].PodAntiAffinity, v.Tasks[4].SpreadConstraints = nil, nil
	// A guard pod keeps "zoned" pods out of its zone: that reads the zone's
	// other nodes.
	v.Nodes[1].Others = []caldera.Pod{{Namespace: "ns", Name: "guard", Labels: map[string]string{"app": "guard"},
		PodAntiAffinity: &caldera.PodAffinity{Required: []caldera.PodAffinityTerm{
			{Selector: sel("app", "zoned"), Namespaces: []string{"ns"}, TopologyKey: "zone"}}}}}
	classes := make([]int32, len(v.Tasks))
	NewIndex(v).NodeLocalClasses(v, true, true, classes)
	if classes[0] <= 0 || classes[1] != classes[0] {
		t.Errorf("db pods: classes %d and %d, want one class above 0 (their own anti-affinity selects them)", classes[0], classes[1])
	}
	if classes[2] <= 0 || classes[2] == classes[0] {
		t.Errorf("web: class %d, want its own class above 0 (db's is %d)", classes[2], classes[0])
	}
	if classes[3] != 0 {
		t.Errorf("plain: class %d, want 0", classes[3])
	}
	if classes[4] != -1 {
		t.Errorf("zoned: class %d, want -1 (a zone anti-affinity selects it)", classes[4])
	}
	v.Tasks[3].SpreadConstraints = []caldera.SpreadConstraint{{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: "DoNotSchedule",
		Selector: sel("app", "plain"), MinDomains: 1, NodeAffinityPolicy: "Honor", NodeTaintsPolicy: "Ignore"}}
	NewIndex(v).NodeLocalClasses(v, true, true, classes)
	if classes[3] != -1 {
		t.Errorf("plain with a zone spread constraint: class %d, want -1", classes[3])
	}
	NewIndex(v).NodeLocalClasses(v, true, false, classes)
	if classes[3] != 0 {
		t.Errorf("plain with the spread filter off: class %d, want 0", classes[3])
	}
	// Hostnames shared by two nodes make a hostname domain span both.
	v.Nodes[1].Labels[hostnameKey] = "n0"
	NewIndex(v).NodeLocalClasses(v, true, true, classes)
	if classes[0] != -1 || classes[2] != -1 {
		t.Errorf("db and web with a shared hostname: classes %d and %d, want -1", classes[0], classes[2])
	}
}

// Hostnames are more domains than a tally holds densely: the sparse tally
// answers as the dense one, for the task's own anti-affinity and for an
// existing pod's (symmetry).
func TestManyDomainsTallySparsely(t *testing.T) {
	v := view(3*denseDomains, "db", "db")
	idx := NewIndex(v)
	f := NewAffinityFilter(idx, &v.Tasks[1])
	place(idx, v, 0, 70)
	f.CatchUp()
	if kt := f.anti.forKey(hostnameKey); kt.sparse == nil {
		t.Fatalf("the hostname tally of %d nodes is dense", len(v.Nodes))
	}
	if r, _ := f.Filter(&v.Nodes[70]); r != ReasonAntiAffinityRulesNotMatch {
		t.Errorf("n70 with a db pod: %q, want the anti-affinity reason", r)
	}
	if r, _ := f.Filter(&v.Nodes[71]); r != "" {
		t.Errorf("n71: %q, want pass", r)
	}
	idx.Remove(&v.Tasks[0])
	f.CatchUp()
	if r, _ := f.Filter(&v.Nodes[70]); r != "" || f.anti.nonzero != 0 {
		t.Errorf("n70 after the db pod left: %q (%d domains counted), want pass and none", r, f.anti.nonzero)
	}
}
