package networktopologyaware

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"
	topologyv1alpha1 "volcano.sh/apis/pkg/apis/topology/v1alpha1"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/testutil"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

func TestArguments(t *testing.T) {
	for _, tc := range []struct {
		args framework.Arguments
		err  string
	}{
		{framework.Arguments{}, ""},
		{framework.Arguments{WeightKey: 10, BinpackResourcesKey: "nvidia.com/gpu", "hypernode.binpack.resources.nvidia.com/gpu": 3}, ""},
		{framework.Arguments{WeightKey: "ten"}, `"weight"`},
		{framework.Arguments{"hypernode.binpack.resources.nvidia.com/gpu": 3}, "needs NAME listed"},
		{framework.Arguments{"hypernode.binpak.cpu": 3}, `unknown arguments ["hypernode.binpak.cpu"]`},
		{framework.Arguments{NormalPodFadingKey: "x"}, NormalPodFadingKey},
	} {
		_, err := New(tc.args)
		if (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("New(%v) = %v, want error containing %q", tc.args, err, tc.err)
		}
	}
	p, _ := New(framework.Arguments{WeightKey: -2, NormalPodFadingKey: -1.0})
	if a := p.(*Plugin).args; a.weight != 1 || a.fading != 0.8 || !a.normalPods || a.evictMaxNodes != 8 {
		t.Errorf("negative values: %+v, want Volcano's defaults", a)
	}
}

func leaf(name string, nodes ...string) *topologyv1alpha1.HyperNode {
	hn := &topologyv1alpha1.HyperNode{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: topologyv1alpha1.HyperNodeSpec{Tier: 1}}
	for _, n := range nodes {
		hn.Spec.Members = append(hn.Spec.Members, topologyv1alpha1.MemberSpec{Type: topologyv1alpha1.MemberTypeNode,
			Selector: topologyv1alpha1.MemberSelector{ExactMatch: &topologyv1alpha1.ExactMatch{Name: n}}})
	}
	return hn
}

func gradientNames(g [][]*api.HyperNodeInfo) string {
	var tiers []string
	for _, tier := range g {
		var names []string
		for _, hn := range tier {
			names = append(names, hn.Name)
		}
		tiers = append(tiers, strings.Join(names, ","))
	}
	return strings.Join(tiers, " | ")
}

// A hard job sees the hypernodes of its allowed tiers with room for its
// minResources, lowest tier first; a soft one (hard up to the top by now)
// also sees the cluster top; a job running in a leaf stays in it.
func TestHyperNodeGradient(t *testing.T) {
	tier := func(n int) *int { return &n }
	group := func(name string, nt *v1beta1.NetworkTopologySpec) *v1beta1.PodGroup {
		pg := testutil.PodGroup("ns", name, "q", 1, v1beta1.PodGroupInqueue)
		rl := testutil.Res("cpu", "3")
		pg.Spec.MinResources, pg.Spec.NetworkTopology = &rl, nt
		return pg
	}
	cpu := testutil.Res("cpu", "2")
	c := testutil.Cluster{
		Queues: []*v1beta1.Queue{testutil.Queue("q", 1)},
		Nodes:  []*v1.Node{testutil.Node("a1", cpu), testutil.Node("a2", cpu), testutil.Node("b1", cpu), testutil.Node("b2", cpu)},
		PodGroups: []*v1beta1.PodGroup{
			group("hard", &v1beta1.NetworkTopologySpec{Mode: v1beta1.HardNetworkTopologyMode, HighestTierAllowed: tier(1)}),
			group("soft", &v1beta1.NetworkTopologySpec{Mode: v1beta1.SoftNetworkTopologyMode}),
			group("running", &v1beta1.NetworkTopologySpec{HighestTierAllowed: tier(1)}),
			testutil.PodGroup("ns", "other", "q", 1, v1beta1.PodGroupRunning),
		},
		Pods: []*v1.Pod{
			testutil.Pod("ns", "o1", "other", "a1", testutil.Res("cpu", "2")),
			testutil.Pod("ns", "r1", "running", "a2", testutil.Res("cpu", "1")),
		},
	}
	ci, err := c.Build()
	if err != nil {
		t.Fatal(err)
	}
	ci.HyperNodes = []*topologyv1alpha1.HyperNode{leaf("leaf-a", "a1", "a2"), leaf("leaf-b", "b1", "b2")}
	reg := testutil.Registry(t, map[string]framework.Factory{Name: New})
	ssn, _ := testutil.OpenOn(t, ci, reg, testutil.Tier(Name))
	defer ssn.Close()
	p := testutil.Instance[*Plugin](t, ssn)
	top := ssn.HyperNodes.Top()
	for job, want := range map[string]string{"hard": "leaf-b", "soft": "leaf-b | " + api.ClusterTopHyperNode, "running": "leaf-a"} {
		if got := gradientNames(p.HyperNodeGradient(testutil.Job(t, ssn, "ns/"+job), nil, top, framework.ScopeJob, framework.PurposeAllocate)); got != want {
			t.Errorf("%s: gradient %q, want %q", job, got, want)
		}
	}
	if got := gradientNames(p.HyperNodeGradient(testutil.Job(t, ssn, "ns/other"), nil, top, framework.ScopeJob, framework.PurposeAllocate)); got != api.ClusterTopHyperNode {
		t.Errorf("job without a topology: gradient %q, want the top alone", got)
	}
	// Eviction judges by allocatable room (leaf-a's 4 CPUs hold the hard
	// job's 3 though 2 are taken) and asks the widest hypernodes first.
	for job, want := range map[string]string{"hard": "leaf-a,leaf-b", "soft": api.ClusterTopHyperNode + " | leaf-a,leaf-b"} {
		if got := gradientNames(p.HyperNodeGradient(testutil.Job(t, ssn, "ns/"+job), nil, top, framework.ScopeJob, framework.PurposeEvict)); got != want {
			t.Errorf("%s: eviction gradient %q, want %q", job, got, want)
		}
	}
}

// Volcano's reverseAndCapEvictionGradients: widest first, at most the
// limit in all, the overflowing gradient cut to its last names.
func TestWidestFirst(t *testing.T) {
	hns := func(names ...string) []*api.HyperNodeInfo {
		var out []*api.HyperNodeInfo
		for _, n := range names {
			out = append(out, &api.HyperNodeInfo{Name: n})
		}
		return out
	}
	g := [][]*api.HyperNodeInfo{hns("l1", "l2", "l3"), hns("s1", "s2"), hns("top")}
	for limit, want := range map[int]string{8: "top | s1,s2 | l1,l2,l3", 4: "top | s1,s2 | l3", 2: "top | s2", 1: "top"} {
		if got := gradientNames(widestFirst(g, limit)); got != want {
			t.Errorf("limit %d: %q, want %q", limit, got, want)
		}
	}
}
