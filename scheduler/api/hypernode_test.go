package api

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	topologyv1alpha1 "volcano.sh/apis/pkg/apis/topology/v1alpha1"
)

func testNodes(names ...string) []*NodeInfo {
	out := make([]*NodeInfo, len(names))
	for i, n := range names {
		out[i] = NewNodeInfo(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: n, Labels: map[string]string{"rack": n[:2]}}})
	}
	return out
}

func member(kind topologyv1alpha1.MemberType, sel topologyv1alpha1.MemberSelector) topologyv1alpha1.MemberSpec {
	return topologyv1alpha1.MemberSpec{Type: kind, Selector: sel}
}

func exact(name string) topologyv1alpha1.MemberSelector {
	return topologyv1alpha1.MemberSelector{ExactMatch: &topologyv1alpha1.ExactMatch{Name: name}}
}

func hyperNode(name string, tier int, members ...topologyv1alpha1.MemberSpec) *topologyv1alpha1.HyperNode {
	return &topologyv1alpha1.HyperNode{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: topologyv1alpha1.HyperNodeSpec{Tier: tier, Members: members}}
}

func nodeNames(hn *HyperNodeInfo) string {
	var out []string
	for _, n := range hn.Nodes {
		out = append(out, n.Name)
	}
	return strings.Join(out, ",")
}

// Every selector kind resolves to the session's nodes, in session order;
// a spine holds its leaves' nodes; the cluster top sits one tier above.
func TestBuildHyperNodesResolvesMembers(t *testing.T) {
	nodes := testNodes("a1", "a2", "b1", "b2", "c1")
	h := BuildHyperNodes([]*topologyv1alpha1.HyperNode{
		hyperNode("leaf-a", 1, member(topologyv1alpha1.MemberTypeNode, topologyv1alpha1.MemberSelector{RegexMatch: &topologyv1alpha1.RegexMatch{Pattern: "^a"}})),
		hyperNode("leaf-b", 1, member(topologyv1alpha1.MemberTypeNode, topologyv1alpha1.MemberSelector{LabelMatch: &metav1.LabelSelector{MatchLabels: map[string]string{"rack": "b1"}}}),
			member(topologyv1alpha1.MemberTypeNode, exact("b2"))),
		hyperNode("spine", 2, member(topologyv1alpha1.MemberTypeHyperNode, exact("leaf-a")), member(topologyv1alpha1.MemberTypeHyperNode, exact("leaf-b"))),
	}, nodes)
	if h.Err != nil {
		t.Fatal(h.Err)
	}
	for name, want := range map[string]string{"leaf-a": "a1,a2", "leaf-b": "b1,b2", "spine": "a1,a2,b1,b2", ClusterTopHyperNode: "a1,a2,b1,b2,c1"} {
		if got := nodeNames(h.Info[name]); got != want {
			t.Errorf("%s holds %s, want %s", name, got, want)
		}
	}
	if top := h.Top(); top.Tier != 3 || h.Info["spine"].Parent != ClusterTopHyperNode {
		t.Errorf("top tier %d, spine's parent %q; want 3 and the top", top.Tier, h.Info["spine"].Parent)
	}
	if got := h.LowestOf("b2"); got != "leaf-b" {
		t.Errorf("LowestOf(b2) = %q, want leaf-b", got)
	}
	if got := h.LowestOf("c1"); got != "" {
		t.Errorf("LowestOf(c1) = %q, want none", got)
	}
	if got := h.LCA("leaf-a", "leaf-b"); got != "spine" {
		t.Errorf("LCA(leaf-a, leaf-b) = %q, want spine", got)
	}
	if got := h.LCA("", "leaf-b"); got != "leaf-b" {
		t.Errorf("LCA(\"\", leaf-b) = %q, want leaf-b", got)
	}
	if len(h.Tiers) != 3 || h.Tiers[0] != 1 || h.Tiers[2] != 3 {
		t.Errorf("tiers %v, want [1 2 3]", h.Tiers)
	}
}

// A cycle or a hypernode with two parents makes the topology unusable, and
// a malformed selector is reported rather than silently empty.
func TestBuildHyperNodesReportsBrokenTrees(t *testing.T) {
	nodes := testNodes("a1")
	cycle := BuildHyperNodes([]*topologyv1alpha1.HyperNode{
		hyperNode("x", 1, member(topologyv1alpha1.MemberTypeHyperNode, exact("y"))),
		hyperNode("y", 2, member(topologyv1alpha1.MemberTypeHyperNode, exact("x"))),
	}, nodes)
	if cycle.Err == nil || !strings.Contains(cycle.Err.Error(), "cycle") {
		t.Errorf("cycle: err %v, want one naming a cycle", cycle.Err)
	}
	twoParents := BuildHyperNodes([]*topologyv1alpha1.HyperNode{
		hyperNode("leaf", 1, member(topologyv1alpha1.MemberTypeNode, exact("a1"))),
		hyperNode("p", 2, member(topologyv1alpha1.MemberTypeHyperNode, exact("leaf"))),
		hyperNode("q", 2, member(topologyv1alpha1.MemberTypeHyperNode, exact("leaf"))),
	}, nodes)
	if twoParents.Err == nil || !strings.Contains(twoParents.Err.Error(), "member of both p and q") {
		t.Errorf("two parents: err %v, want one naming both", twoParents.Err)
	}
	bad := BuildHyperNodes([]*topologyv1alpha1.HyperNode{
		hyperNode("leaf", 1, member(topologyv1alpha1.MemberTypeNode, topologyv1alpha1.MemberSelector{RegexMatch: &topologyv1alpha1.RegexMatch{Pattern: "("}})),
	}, nodes)
	if bad.Err != nil || len(bad.Warnings) != 1 || !strings.Contains(bad.Warnings[0], "does not compile") {
		t.Errorf("bad regex: err %v, warnings %q; want one warning", bad.Err, bad.Warnings)
	}
}

// Without HyperNodes the cluster top alone is tier 1 and holds every node.
func TestBuildHyperNodesWithoutObjects(t *testing.T) {
	h := BuildHyperNodes(nil, testNodes("a1", "a2"))
	if top := h.Top(); top.Tier != 1 || len(top.Nodes) != 2 || len(h.Tiers) != 1 {
		t.Errorf("top %+v, tiers %v; want tier 1 with both nodes", top, h.Tiers)
	}
}
