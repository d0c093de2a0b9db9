package numaaware

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/utils/cpuset"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/testutil"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// numa returns NUMA information for the node of the provider's tests
// (volcanoTestCPUs: NUMA nodes 0 and 1 of four CPUs each) with the given
// policies and free CPUs.
func numa(cpuPolicy, topologyPolicy string, free cpuset.CPUSet) *api.NumaInfo {
	return &api.NumaInfo{
		CPUManagerPolicy:      cpuPolicy,
		TopologyManagerPolicy: topologyPolicy,
		CPUs:                  volcanoTestCPUs,
		Allocatable:           api.NumaSets{"cpu": free},
	}
}

var allCPUs = cpuset.New(0, 1, 2, 3, 4, 5, 6, 7)

// guaranteed returns a pending Guaranteed pod of job ns/pg asking for
// whole CPUs, with a topology policy annotation unless policy is "".
func guaranteed(name, cpus, policy string) *v1.Pod {
	rl := testutil.Res("cpu", cpus, "memory", "1Gi")
	p := testutil.Pod("ns", name, "pg", "", rl)
	p.Spec.Containers[0].Resources.Limits = rl.DeepCopy()
	if policy != "" {
		p.Annotations[api.NumaPolicyAnnotation] = policy
	}
	return p
}

// session opens a session of the numa-aware plugin (weight 2) on nodes
// n1, n2, ... with the given NUMA information (nil: none) and the pods.
func session(t *testing.T, infos []*api.NumaInfo, pods ...*v1.Pod) (*framework.Session, *testutil.Cache) {
	t.Helper()
	c := testutil.Cluster{
		Queues:    []*v1beta1.Queue{testutil.Queue("q", 1)},
		PodGroups: []*v1beta1.PodGroup{testutil.PodGroup("ns", "pg", "q", 1, v1beta1.PodGroupInqueue)},
		Pods:      pods,
	}
	for i := range infos {
		c.Nodes = append(c.Nodes, testutil.Node(nodeName(i), testutil.Res("cpu", "8", "memory", "32Gi", "pods", "110")))
	}
	ci, err := c.Build()
	if err != nil {
		t.Fatal(err)
	}
	for i, info := range infos {
		ci.Nodes[nodeName(i)].SetNuma(info)
	}
	registry := testutil.Registry(t, map[string]framework.Factory{Name: New})
	return testutil.OpenOn(t, ci, registry, testutil.Tier(Name)+"    arguments: {weight: 2}\n")
}

func nodeName(i int) string { return "n" + string(rune('1'+i)) }

func TestPredicate(t *testing.T) {
	static := func(policy string) *api.NumaInfo { return numa(api.CPUManagerPolicyStatic, policy, allCPUs) }
	infos := []*api.NumaInfo{
		nil,
		numa(api.CPUManagerPolicyNone, api.TopologyPolicySingleNumaNode, allCPUs),
		static(api.TopologyPolicyBestEffort),
		numa(api.CPUManagerPolicyStatic, api.TopologyPolicySingleNumaNode, cpuset.New()),
		static(api.TopologyPolicySingleNumaNode),
		static(api.TopologyPolicyRestricted),
	}
	burstable := guaranteed("burstable", "6", api.TopologyPolicySingleNumaNode)
	burstable.Spec.Containers[0].Resources.Limits = nil
	ssn, _ := session(t, infos,
		guaranteed("single", "4", api.TopologyPolicySingleNumaNode),
		guaranteed("single-too-big", "6", api.TopologyPolicySingleNumaNode),
		guaranteed("plain", "6", ""),
		guaranteed("bogus", "1", "bogus"),
		burstable)
	// Each pod's answer on n1..n6: "" passes, else the status code and
	// reason.
	want := map[string][]string{
		"single": {
			"Error: numa info is empty",
			"Error: cpu manager policy isn't static",
			"Error: task topology policy[single-numa-node] is different with node[best-effort]",
			"Error: cpu allocatable map is empty",
			"",
			"Error: task topology policy[single-numa-node] is different with node[restricted]",
		},
		"single-too-big": {
			"Error: numa info is empty",
			"Error: cpu manager policy isn't static",
			"Error: task topology policy[single-numa-node] is different with node[best-effort]",
			"Error: cpu allocatable map is empty",
			"UnschedulableAndUnresolvable: container main cannot be assigned by numa",
			"Error: task topology policy[single-numa-node] is different with node[restricted]",
		},
		// A pod that asks for no policy is checked by the node's own on
		// static nodes: six CPUs need both NUMA nodes, which best-effort
		// and restricted take (no one NUMA node could hold them, so both
		// is preferred) and single-numa-node refuses.
		"plain": {"", "", "", "UnschedulableAndUnresolvable: container main cannot be assigned by numa",
			"UnschedulableAndUnresolvable: container main cannot be assigned by numa", ""},
		// A policy no kubelet has matches no node (and is logged).
		"bogus": {
			"Error: numa info is empty",
			"Error: cpu manager policy isn't static",
			"Error: task topology policy[bogus] is different with node[best-effort]",
			"Error: task topology policy[bogus] is different with node[single-numa-node]",
			"Error: task topology policy[bogus] is different with node[single-numa-node]",
			"Error: task topology policy[bogus] is different with node[restricted]",
		},
		"burstable": {"", "", "", "", "", ""},
	}
	for pod, answers := range want {
		task := testutil.Task(t, ssn, "ns/"+pod)
		for i, w := range answers {
			got := ""
			if st := ssn.PredicateFn(task, ssn.Nodes[nodeName(i)]); st != nil {
				got = st.Code.String() + ": " + st.Message()
			}
			if got != w {
				t.Errorf("%s on %s: %q, want %q", pod, nodeName(i), got, w)
			}
		}
	}
}

// Caldera's own case for the score: on n1 NUMA node 0 has only CPUs 2
// and 3 free, so four CPUs span both NUMA nodes; on n2 they fit on one.
// Spans 2 and 1, the widest 2: scores 100-100, 100-50, times weight 2.
func TestBatchNodeOrderPrefersFewerNumaNodes(t *testing.T) {
	ssn, _ := session(t, []*api.NumaInfo{
		numa(api.CPUManagerPolicyStatic, api.TopologyPolicyBestEffort, cpuset.New(2, 3, 4, 5, 6)),
		numa(api.CPUManagerPolicyStatic, api.TopologyPolicyBestEffort, allCPUs),
	}, guaranteed("p", "4", api.TopologyPolicyBestEffort), guaranteed("plain", "4", ""))
	nodes := []*api.NodeInfo{ssn.Nodes["n1"], ssn.Nodes["n2"]}
	task := testutil.Task(t, ssn, "ns/p")
	for _, n := range nodes {
		if st := ssn.PredicateFn(task, n); st != nil {
			t.Fatalf("predicate on %s: %v", n.Name, st)
		}
	}
	scores := make([]float64, 2)
	if err := ssn.BatchNodeOrderFn(task, nodes, scores); err != nil {
		t.Fatal(err)
	}
	if scores[0] != 0 || scores[1] != 100 {
		t.Errorf("scores %v, want [0 100]", scores)
	}
	// A pod without a policy is not scored, though the predicate picked
	// CPUs for it.
	plain := testutil.Task(t, ssn, "ns/plain")
	for _, n := range nodes {
		ssn.PredicateFn(plain, n)
	}
	scores = make([]float64, 2)
	if err := ssn.BatchNodeOrderFn(plain, nodes, scores); err != nil || scores[0] != 0 || scores[1] != 0 {
		t.Errorf("pod without policy: scores %v (%v), want none", scores, err)
	}
}

// Caldera's own case for the events and close: the CPUs a placed pod
// takes are not offered to the next pod, a discarded placement gives
// them back, and the cache gets the placed pods' CPUs at close.
func TestAllocateEventsAndClose(t *testing.T) {
	ssn, cache := session(t, []*api.NumaInfo{numa(api.CPUManagerPolicyStatic, api.TopologyPolicySingleNumaNode, allCPUs)},
		guaranteed("a", "4", api.TopologyPolicySingleNumaNode),
		guaranteed("b", "4", api.TopologyPolicySingleNumaNode),
		guaranteed("c", "4", api.TopologyPolicySingleNumaNode))
	p := testutil.Instance[*Plugin](t, ssn)
	n1 := ssn.Nodes["n1"]
	place := func(stmt *framework.Statement, pod string) cpuset.CPUSet {
		t.Helper()
		task := testutil.Task(t, ssn, "ns/"+pod)
		if st := ssn.PredicateFn(task, n1); st != nil {
			t.Fatalf("predicate %s: %v", pod, st)
		}
		if err := stmt.Allocate(task, n1); err != nil {
			t.Fatal(err)
		}
		return p.proposed[task.UID]["n1"]["cpu"]
	}
	kept := framework.NewStatement(ssn)
	if got := place(kept, "a"); !got.Equals(cpuset.New(0, 1, 2, 3)) {
		t.Fatalf("a got %s, want 0-3", got)
	}
	kept.Commit()
	discarded := framework.NewStatement(ssn)
	if got := place(discarded, "b"); !got.Equals(cpuset.New(4, 5, 6, 7)) {
		t.Fatalf("b got %s, want 4-7", got)
	}
	task := testutil.Task(t, ssn, "ns/c")
	// The node's free set, as the session counts it, is empty.
	if st := ssn.PredicateFn(task, n1); st == nil || st.Message() != "cpu allocatable map is empty" {
		t.Fatalf("c with every CPU taken: %v, want refused", st)
	}
	discarded.Discard()
	if st := ssn.PredicateFn(task, n1); st != nil {
		t.Fatalf("c after b's placement was discarded: %v", st)
	}
	ssn.Close()
	if got := cache.NumaSets["n1"]["cpu"]; !got.Equals(cpuset.New(0, 1, 2, 3)) {
		t.Errorf("handed to the cache: %v, want n1 cpu 0-3", cache.NumaSets)
	}
}

func TestArguments(t *testing.T) {
	if _, err := New(framework.Arguments{"weight": 3}); err != nil {
		t.Errorf("weight 3: %v", err)
	}
	if _, err := New(framework.Arguments{"weight": "heavy"}); err == nil {
		t.Error("weight heavy: accepted")
	}
	if _, err := New(framework.Arguments{"numa.weight": 3}); err == nil || !strings.Contains(err.Error(), "numa.weight") {
		t.Errorf("unknown key: %v, want it refused by name", err)
	}
}
