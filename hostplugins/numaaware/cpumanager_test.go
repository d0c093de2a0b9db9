package numaaware

import (
	"fmt"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/cpuset"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// The CPU manager provider's table tests of volcano-sh/volcano@8fc394c11e8d
// (v1.15.0) pkg/scheduler/plugins/numaaware/provider/cpumanager/cpu_mng_test.go
// (Test_GetTopologyHints, Test_Allocate), on their node: two sockets, each
// one NUMA node of two cores of two CPUs (CPUs 0-3 on NUMA node 0, 4-7 on
// NUMA node 1).
var volcanoTestCPUs = map[int]api.CPUInfo{
	0: {NUMANode: 0, Socket: 0, Core: 0}, 1: {NUMANode: 0, Socket: 0, Core: 0},
	2: {NUMANode: 0, Socket: 0, Core: 1}, 3: {NUMANode: 0, Socket: 0, Core: 1},
	4: {NUMANode: 1, Socket: 1, Core: 2}, 5: {NUMANode: 1, Socket: 1, Core: 2},
	6: {NUMANode: 1, Socket: 1, Core: 3}, 7: {NUMANode: 1, Socket: 1, Core: 3},
}

func cpuContainer(cpus string) *v1.Container {
	return &v1.Container{Name: "c", Resources: v1.ResourceRequirements{
		Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpus)},
	}}
}

func TestCPUHints(t *testing.T) {
	n := newNodeTopology(&api.NumaInfo{CPUs: volcanoTestCPUs})
	cases := []struct {
		name      string
		request   string
		available cpuset.CPUSet
		want      []topologyHint
	}{
		{"test-1", "4", cpuset.New(0, 1, 2, 3, 4, 5, 6, 7), []topologyHint{h(true, 0), h(true, 1), h(false, 0, 1)}},
		{"test-2", "4", cpuset.New(1, 2, 3, 4, 5, 6, 7), []topologyHint{h(true, 1), h(false, 0, 1)}},
		{"test-3", "5", cpuset.New(0, 1, 2, 3, 4, 5, 6, 7), []topologyHint{h(true, 0, 1)}},
		{"test-4", "8", cpuset.New(0, 1, 2, 3, 4, 5, 6, 7), []topologyHint{h(true, 0, 1)}},
		{"test-5", "9", cpuset.New(0, 1, 2, 3, 4, 5, 6, 7), []topologyHint{}},
		{"test-6", "4", cpuset.New(2, 3, 4, 5), []topologyHint{h(false, 0, 1)}},
	}
	for _, tc := range cases {
		got := cpuHints(cpuContainer(tc.request), n, api.NumaSets{"cpu": tc.available})
		if list, ok := got["cpu"]; !ok || list == nil || !slices.Equal(list, tc.want) {
			t.Errorf("%s: hints %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// Caldera's own cases: the provider has no preference for a container
// without a CPU request, with a fractional one, or on a node without a
// CPU set; reserved CPUs are not offered.
func TestCPUHintsWithoutPreference(t *testing.T) {
	n := newNodeTopology(&api.NumaInfo{CPUs: volcanoTestCPUs})
	all := api.NumaSets{"cpu": cpuset.New(0, 1, 2, 3, 4, 5, 6, 7)}
	if got := cpuHints(&v1.Container{}, n, all); got != nil {
		t.Errorf("no request: %+v, want no preference", got)
	}
	if got := cpuHints(cpuContainer("1500m"), n, all); got != nil {
		t.Errorf("fractional request: %+v, want no preference", got)
	}
	if got := cpuHints(cpuContainer("2"), n, api.NumaSets{}); got != nil {
		t.Errorf("no CPU set: %+v, want no preference", got)
	}
	// Two reserved CPUs are taken like a container's: a whole core, of
	// socket 0 (as many free cores as socket 1, the lower number): CPUs 0
	// and 1.
	reserving := newNodeTopology(&api.NumaInfo{CPUs: volcanoTestCPUs, ReservedCPUs: 2})
	if !reserving.reserved.Equals(cpuset.New(0, 1)) {
		t.Fatalf("reserved %s, want 0-1", reserving.reserved)
	}
	want := []topologyHint{h(true, 1), h(false, 0, 1)}
	if got := cpuHints(cpuContainer("4"), reserving, all); !slices.Equal(got["cpu"], want) {
		t.Errorf("with CPUs 0-1 reserved: %+v, want %+v", got, want)
	}
}

func TestCPUAllocate(t *testing.T) {
	n := newNodeTopology(&api.NumaInfo{CPUs: volcanoTestCPUs})
	cases := []struct {
		name      string
		request   string
		available cpuset.CPUSet
		best      topologyHint
		want      cpuset.CPUSet
	}{
		{"test-1", "4", cpuset.New(0, 1, 2, 3, 4, 5, 6, 7), h(true, 0), cpuset.New(0, 1, 2, 3)},
		{"test-2", "4", cpuset.New(1, 2, 3, 4, 5, 6, 7), h(true, 1), cpuset.New(4, 5, 6, 7)},
		{"test-3", "5", cpuset.New(0, 1, 2, 3, 4, 5, 6, 7), h(true, 0, 1), cpuset.New(0, 1, 2, 3, 4)},
		{"test-4", "5", cpuset.New(1, 2, 3, 4, 5, 6, 7), h(true, 0, 1), cpuset.New(1, 4, 5, 6, 7)},
		{"test-5", "8", cpuset.New(1, 2, 3, 4, 5, 6, 7), h(true, 0, 1), cpuset.New()},
	}
	for _, tc := range cases {
		got := cpuAllocate(cpuContainer(tc.request), tc.best, n, api.NumaSets{"cpu": tc.available})
		if !got["cpu"].Equals(tc.want) {
			t.Errorf("%s: picked %s, want %s", tc.name, got["cpu"], tc.want)
		}
	}
}

// Caldera's own case for picking single CPUs as Volcano does, on a node
// of two sockets (one NUMA node each) of four two-thread cores numbered
// 0-7 across the node, CPU 13 taken: a container of three CPUs aligned to
// NUMA node 1 finds no free core there (its core numbers, 4-7, are not
// the IDs of free CPUs of the node, Volcano's test of a free core), so it
// takes single CPUs, core by core in the order Volcano's comparison gives
// the cores 4, 5, 6, 7: core 6 first (fewest free CPUs on the core), then
// 4: CPUs 12, 8, 9.
func TestTakeByTopologySingleCPUs(t *testing.T) {
	cpus := map[int]api.CPUInfo{}
	for id := 0; id < 16; id++ {
		socket := id / 8
		cpus[id] = api.CPUInfo{NUMANode: socket, Socket: socket, Core: id / 2}
	}
	n := newNodeTopology(&api.NumaInfo{CPUs: cpus})
	available := cpuset.New(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 15)
	got := cpuAllocate(cpuContainer("3"), h(true, 1), n, api.NumaSets{"cpu": available})
	if want := cpuset.New(8, 9, 12); !got["cpu"].Equals(want) {
		t.Errorf("picked %s, want %s", got["cpu"], want)
	}
}

func TestNumaMask(t *testing.T) {
	m := maskOf(0, 3)
	if got := fmt.Sprint(m.ids(), m.count()); got != "[0 3] 2" {
		t.Errorf("ids and count %s, want [0 3] 2", got)
	}
	if !maskOf(1).narrowerThan(maskOf(0, 1)) || !maskOf(0).narrowerThan(maskOf(1)) || maskOf(1).narrowerThan(maskOf(0)) {
		t.Error("narrowerThan: fewer nodes, then the lower mask, is narrower")
	}
}
