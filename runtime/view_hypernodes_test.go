package runtime

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	topologyv1alpha1 "volcano.sh/apis/pkg/apis/topology/v1alpha1"

	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/scheduler/api"
)

func topoNodes(n int) []*api.NodeInfo {
	out := make([]*api.NodeInfo, n)
	for i := range out {
		out[i] = api.NewNodeInfo(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%04d", i)}})
		out[i].Index = i
	}
	return out
}

func topoHyperNode(name string, tier int, kind topologyv1alpha1.MemberType, members ...string) *topologyv1alpha1.HyperNode {
	hn := &topologyv1alpha1.HyperNode{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: topologyv1alpha1.HyperNodeSpec{Tier: tier}}
	for _, m := range members {
		hn.Spec.Members = append(hn.Spec.Members, topologyv1alpha1.MemberSpec{Type: kind,
			Selector: topologyv1alpha1.MemberSelector{ExactMatch: &topologyv1alpha1.ExactMatch{Name: m}}})
	}
	return hn
}

// wireTopology resolves HyperNode objects over nodes as a session does
// and returns View.hyperNodes.
func wireTopology(objs []*topologyv1alpha1.HyperNode, nodes []*api.NodeInfo) []abi.HyperNode {
	h := api.BuildHyperNodes(objs, nodes)
	list, index := hyperNodeHandles(h)
	byName := map[string]int32{}
	for _, n := range nodes {
		byName[n.Name] = int32(n.Index)
	}
	return wireHyperNodes(list, index, byName)
}

// Hypernodes reach the view in name order, the cluster top included, each
// with its parent's handle and only the nodes no child holds; a node in no
// hypernode hangs from the top. The hand encoder writes what reflection
// writes.
func TestWireHyperNodes(t *testing.T) {
	nodes := topoNodes(5)
	got := wireTopology([]*topologyv1alpha1.HyperNode{
		topoHyperNode("leaf-a", 1, topologyv1alpha1.MemberTypeNode, "node-0000", "node-0001"),
		topoHyperNode("leaf-b", 1, topologyv1alpha1.MemberTypeNode, "node-0002", "node-0003"),
		topoHyperNode("spine", 2, topologyv1alpha1.MemberTypeHyperNode, "leaf-a", "leaf-b"),
	}, nodes)
	want := []abi.HyperNode{
		{Name: api.ClusterTopHyperNode, Tier: 3, Parent: -1, Nodes: []int32{4}},
		{Name: "leaf-a", Tier: 1, Parent: 3, Nodes: []int32{0, 1}},
		{Name: "leaf-b", Tier: 1, Parent: 3, Nodes: []int32{2, 3}},
		{Name: "spine", Tier: 2, Parent: 0},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("hypernodes\n%+v\nwant\n%+v", got, want)
	}
	if hand, refl := encodeHyperNodes(want), mustMarshal(t, want); !bytes.Equal(hand, refl) {
		t.Errorf("hypernodes by hand\n%x\nby reflection\n%x", hand, refl)
	}
	if encodeHyperNodes(nil) != nil {
		t.Error("no hypernodes should leave the field out")
	}
}

// fabric is the tree RATIONALE.md measures: 5,000 nodes under 64 leaves
// (tier 1) under 8 spines (tier 2), under the cluster top (tier 3).
func fabric() ([]*topologyv1alpha1.HyperNode, []*api.NodeInfo) {
	nodes := topoNodes(5000)
	var objs []*topologyv1alpha1.HyperNode
	for s := range 8 {
		var leaves []string
		for l := range 8 {
			leaf := fmt.Sprintf("leaf-%02d", s*8+l)
			leaves = append(leaves, leaf)
			var members []string
			for i := (s*8 + l) * 5000 / 64; i < (s*8+l+1)*5000/64; i++ {
				members = append(members, nodes[i].Name)
			}
			objs = append(objs, topoHyperNode(leaf, 1, topologyv1alpha1.MemberTypeNode, members...))
		}
		objs = append(objs, topoHyperNode(fmt.Sprintf("spine-%d", s), 2, topologyv1alpha1.MemberTypeHyperNode, leaves...))
	}
	return objs, nodes
}

// TestHyperNodesViewSize reports what View.hyperNodes costs for the
// measured tree (go test ./runtime -run TestHyperNodesViewSize -v).
func TestHyperNodesViewSize(t *testing.T) {
	objs, nodes := fabric()
	hns := wireTopology(objs, nodes)
	b := encodeHyperNodes(hns)
	if len(hns) != 1+8+64 {
		t.Fatalf("%d hypernodes, want 73", len(hns))
	}
	handles := 0
	for _, hn := range hns {
		handles += len(hn.Nodes)
	}
	if handles != 5000 {
		t.Errorf("%d node handles sent, want each node once", handles)
	}
	t.Logf("View.hyperNodes: %d hypernodes, %d node handles, %d bytes", len(hns), handles, len(b))
}

func BenchmarkEncodeHyperNodes(b *testing.B) {
	objs, nodes := fabric()
	h := api.BuildHyperNodes(objs, nodes)
	byName := map[string]int32{}
	for _, n := range nodes {
		byName[n.Name] = int32(n.Index)
	}
	b.ReportAllocs()
	for b.Loop() {
		list, index := hyperNodeHandles(h)
		encodeHyperNodes(wireHyperNodes(list, index, byName))
	}
}
