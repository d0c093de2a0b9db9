package e2e

import (
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"
	topologyv1alpha1 "volcano.sh/apis/pkg/apis/topology/v1alpha1"

	"github.com/caldera-scheduler/caldera/e2e/harness"
)

// TestNetworkTopologyHardTierStaysInOneLeaf: four 4-CPU nodes in two leaf
// HyperNodes (nodes chosen by label) under a spine. A gang of four 2-CPU
// pods with networkTopology hard, highestTierAllowed 1 lands whole in one
// leaf, where nodeorder alone spreads it over all four nodes and so over
// both leaves.
func TestNetworkTopologyHardTierStaysInOneLeaf(t *testing.T) {
	tc := harness.NewTest(t)
	tc.StartScheduler(schedulerConf(t, "network-topology.yaml"))
	leafOf := func(i int) string { return fmt.Sprintf("leaf-%d", i/2) }
	nodes := tc.CreateNodes(4, harness.NodeSpec{CPU: "4", Memory: "16Gi", Pods: 110,
		LabelsOf: func(i int) map[string]string { return map[string]string{"caldera.test/leaf": tc.Name(leafOf(i))} }})
	var leaves []topologyv1alpha1.MemberSpec
	for _, leaf := range []string{"leaf-0", "leaf-1"} {
		name := tc.CreateHyperNode(leaf, 1, topologyv1alpha1.MemberSpec{Type: topologyv1alpha1.MemberTypeNode,
			Selector: topologyv1alpha1.MemberSelector{LabelMatch: &metav1.LabelSelector{MatchLabels: map[string]string{"caldera.test/leaf": tc.Name(leaf)}}}})
		leaves = append(leaves, topologyv1alpha1.MemberSpec{Type: topologyv1alpha1.MemberTypeHyperNode,
			Selector: topologyv1alpha1.MemberSelector{ExactMatch: &topologyv1alpha1.ExactMatch{Name: name}}})
	}
	tc.CreateHyperNode("spine", 2, leaves...)

	tier := 1
	tc.CreatePodGroup("gang", v1beta1.PodGroupSpec{MinMember: 4, Queue: "default",
		NetworkTopology: &v1beta1.NetworkTopologySpec{Mode: v1beta1.HardNetworkTopologyMode, HighestTierAllowed: &tier}})
	tc.CreatePods(harness.Pods{Prefix: "gang", Count: 4, CPU: "2", Memory: "1Gi", PodGroup: "gang"})
	waitPods(t, tc, "gang", 4, harness.Bound, "bound")

	used := map[string]int{}
	for _, p := range tc.ListPods("gang") {
		for i, n := range nodes {
			if n == p.Spec.NodeName {
				used[leafOf(i)]++
			}
		}
	}
	if len(used) != 1 {
		t.Errorf("the gang's pods are in leaves %v, want all four in one", used)
	}
}
