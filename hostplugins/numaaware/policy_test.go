package numaaware

import (
	"testing"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// The policies' table tests of volcano-sh/volcano@8fc394c11e8d (v1.15.0)
// pkg/scheduler/plugins/numaaware/policy: policy_none_test.go
// (Test_none_predicate), policy_best_effort_test.go
// (Test_best_effort_predicate), policy_restricted_test.go
// (Test_restricted_predicate) and policy_single_numa_node_test.go
// (Test_single_numa_node_predicate), on a node of NUMA nodes 0 and 1,
// with hints from two providers, "cpu" and "gpu".

// h is a hint on the given NUMA nodes.
func h(preferred bool, ids ...int) topologyHint {
	return topologyHint{affinity: maskOf(ids...), preferred: preferred}
}

// cpuGPU is the cases' shape: one provider hinting for cpu, one for gpu.
func cpuGPU(cpu, gpu []topologyHint) []providerHints {
	return []providerHints{{"cpu": cpu}, {"gpu": gpu}}
}

// Volcano's cases test-1 to test-6, shared by best-effort, restricted
// and single-numa-node.
var policyCases = []struct {
	name  string
	hints []providerHints
}{
	{"test-1", cpuGPU([]topologyHint{h(false, 0, 1), h(true, 0)}, []topologyHint{h(false, 0, 1), h(true, 0)})},
	{"test-2", cpuGPU([]topologyHint{h(false, 0, 1), h(true, 1)}, []topologyHint{h(false, 0, 1), h(true, 1)})},
	{"test-3", cpuGPU([]topologyHint{h(false, 0, 1), h(true, 0), h(true, 1)}, []topologyHint{h(false, 0, 1), h(true, 0), h(true, 1)})},
	{"test-4", cpuGPU([]topologyHint{h(false, 0, 1), h(true, 0)}, []topologyHint{h(false, 0, 1), h(true, 1)})},
	{"test-5", cpuGPU([]topologyHint{h(false, 0, 1), h(true, 0)}, []topologyHint{h(true, 0, 1)})},
	{"test-6", cpuGPU([]topologyHint{h(true, 0, 1)}, []topologyHint{h(true, 0, 1)})},
}

func TestPolicies(t *testing.T) {
	// The best hint each policy finds in each case; single-numa-node has
	// no test-6 in Volcano, and its answer here follows from its rule
	// (no preferred hint on one NUMA node: all nodes, not preferred).
	want := map[string]map[string]topologyHint{
		api.TopologyPolicyBestEffort: {
			"test-1": h(true, 0), "test-2": h(true, 1), "test-3": h(true, 0),
			"test-4": h(false, 0), "test-5": h(true, 0), "test-6": h(true, 0, 1),
		},
		api.TopologyPolicyRestricted: {
			"test-1": h(true, 0), "test-2": h(true, 1), "test-3": h(true, 0),
			"test-4": h(false, 0), "test-5": h(true, 0), "test-6": h(true, 0, 1),
		},
		api.TopologyPolicySingleNumaNode: {
			"test-1": h(true, 0), "test-2": h(true, 1), "test-3": h(true, 0),
			"test-4": h(false, 0, 1), "test-5": h(false, 0, 1), "test-6": h(false, 0, 1),
		},
	}
	for name, cases := range want {
		for _, tc := range policyCases {
			best, admitted := policyFor(name).admit([]int{0, 1}, tc.hints)
			if best != cases[tc.name] {
				t.Errorf("%s %s: best hint %+v, want %+v", name, tc.name, best, cases[tc.name])
			}
			// best-effort admits everything; the others only a preferred
			// best hint.
			if wantAdmit := name == api.TopologyPolicyBestEffort || best.preferred; admitted != wantAdmit {
				t.Errorf("%s %s: admitted %v, want %v", name, tc.name, admitted, wantAdmit)
			}
		}
	}
}

// Test_none_predicate test-1: no hints, no affinity, admitted. An unknown
// policy name decides as none.
func TestPolicyNoneAdmitsWithoutAffinity(t *testing.T) {
	for _, name := range []string{"none", "", "some-future-policy"} {
		best, admitted := policyFor(name).admit([]int{0, 1}, nil)
		if best != (topologyHint{}) || !admitted {
			t.Errorf("policy %q: %+v admitted %v, want no affinity, admitted", name, best, admitted)
		}
	}
}

// Caldera's own cases for the rules the translated tables do not reach:
// a provider or resource without preference, one that no NUMA node can
// hold, and the narrower of two preferred hints of equal size.
func TestMergeRules(t *testing.T) {
	cases := []struct {
		name  string
		hints []providerHints
		want  topologyHint
	}{
		{"provider without preference counts as any node, preferred",
			[]providerHints{nil, {"cpu": {h(true, 1)}}}, h(true, 1)},
		{"resource without preference counts as any node, preferred",
			[]providerHints{{"cpu": nil}}, h(true, 0, 1)},
		{"resource no node can hold counts as any node, not preferred",
			[]providerHints{{"cpu": {}}}, h(false, 0, 1)},
		{"equal size: the lower mask is narrower",
			[]providerHints{{"cpu": {h(true, 1), h(true, 0)}}}, h(true, 0)},
		{"no common node: the best stays all nodes, not preferred",
			[]providerHints{{"cpu": {h(true, 0)}}, {"gpu": {h(true, 1)}}}, h(false, 0, 1)},
	}
	for _, tc := range cases {
		if got, _ := policyFor(api.TopologyPolicyBestEffort).admit([]int{0, 1}, tc.hints); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestEachNumaSetOrder(t *testing.T) {
	var got []numaMask
	eachNumaSet([]int{0, 1, 3}, func(m numaMask) { got = append(got, m) })
	want := []numaMask{maskOf(0), maskOf(1), maskOf(3), maskOf(0, 1), maskOf(0, 3), maskOf(1, 3), maskOf(0, 1, 3)}
	if len(got) != len(want) {
		t.Fatalf("%v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%v, want %v", got, want)
		}
	}
}
