package api

import (
	"strings"
	"testing"

	nodeinfov1alpha1 "volcano.sh/apis/pkg/apis/nodeinfo/v1alpha1"
)

func TestNewNumaInfo(t *testing.T) {
	good := func() *nodeinfov1alpha1.Numatopology {
		return &nodeinfov1alpha1.Numatopology{Spec: nodeinfov1alpha1.NumatopoSpec{
			Policies: map[nodeinfov1alpha1.PolicyName]string{
				nodeinfov1alpha1.CPUManagerPolicy:      "static",
				nodeinfov1alpha1.TopologyManagerPolicy: "restricted",
			},
			ResReserved: map[string]string{"cpu": "1500m", "memory": "1Gi"},
			NumaResMap:  map[string]nodeinfov1alpha1.ResourceInfo{"cpu": {Allocatable: "1-3"}},
			CPUDetail: map[string]nodeinfov1alpha1.CPUInfo{
				"0": {}, "1": {}, "2": {NUMANodeID: 1, SocketID: 1, CoreID: 1}, "3": {NUMANodeID: 1, SocketID: 1, CoreID: 1},
			},
		}}
	}
	info, faults := NewNumaInfo(good())
	if len(faults) > 0 || info == nil {
		t.Fatalf("a good report: %v, %v", info, faults)
	}
	if info.CPUManagerPolicy != "static" || info.TopologyManagerPolicy != "restricted" || info.ReservedCPUs != 2 ||
		info.Allocatable["cpu"].String() != "1-3" || info.CPUs[3] != (CPUInfo{NUMANode: 1, Socket: 1, Core: 1}) {
		t.Errorf("read %+v", info)
	}

	cases := []struct {
		name   string
		change func(*nodeinfov1alpha1.Numatopology)
		fault  string
		// unusable: no information at all; otherwise check reads it.
		unusable bool
		check    func(*NumaInfo) bool
	}{
		{"allocatable not a CPU list", func(o *nodeinfov1alpha1.Numatopology) {
			o.Spec.NumaResMap["cpu"] = nodeinfov1alpha1.ResourceInfo{Allocatable: "1-x"}
		},
			"spec.numares.cpu.allocatable: \"1-x\" is not a CPU list", false, func(i *NumaInfo) bool { return i.Allocatable["cpu"].IsEmpty() }},
		{"allocatable CPU not placed", func(o *nodeinfov1alpha1.Numatopology) {
			o.Spec.NumaResMap["cpu"] = nodeinfov1alpha1.ResourceInfo{Allocatable: "1-5"}
		},
			"spec.numares.cpu.allocatable: CPUs 4-5 are not in spec.cpuDetail", false, func(i *NumaInfo) bool { return i.Allocatable["cpu"].Size() == 5 }},
		{"cpuDetail key not a CPU", func(o *nodeinfov1alpha1.Numatopology) { o.Spec.CPUDetail["cpu4"] = nodeinfov1alpha1.CPUInfo{} },
			"spec.cpuDetail.cpu4: the key is not a CPU ID", false, func(i *NumaInfo) bool { return len(i.CPUs) == 4 }},
		{"NUMA node 64", func(o *nodeinfov1alpha1.Numatopology) {
			o.Spec.CPUDetail["3"] = nodeinfov1alpha1.CPUInfo{NUMANodeID: 64}
		},
			"spec.cpuDetail.3: numa 64, socket 0, core 0", true, nil},
		{"negative core", func(o *nodeinfov1alpha1.Numatopology) { o.Spec.CPUDetail["3"] = nodeinfov1alpha1.CPUInfo{CoreID: -1} },
			"spec.cpuDetail.3: numa 0, socket 0, core -1", true, nil},
		{"reservation of pods", func(o *nodeinfov1alpha1.Numatopology) { o.Spec.ResReserved["pods"] = "10" },
			"spec.resReserved: pods: only cpu, memory and ephemeral-storage can be reserved", false, func(i *NumaInfo) bool { return i.ReservedCPUs == 0 }},
		{"reservation not a quantity", func(o *nodeinfov1alpha1.Numatopology) { o.Spec.ResReserved["cpu"] = "lots" },
			"spec.resReserved: cpu:", false, func(i *NumaInfo) bool { return i.ReservedCPUs == 0 }},
		{"CPU manager policy", func(o *nodeinfov1alpha1.Numatopology) {
			o.Spec.Policies[nodeinfov1alpha1.CPUManagerPolicy] = "Static"
		}, "spec.policies.CPUManagerPolicy: \"Static\" is not a CPU manager policy", false, func(i *NumaInfo) bool { return i.CPUManagerPolicy == "Static" }},
		{"topology policy", func(o *nodeinfov1alpha1.Numatopology) {
			o.Spec.Policies[nodeinfov1alpha1.TopologyManagerPolicy] = "single-numa"
		}, "spec.policies.TopologyManagerPolicy: \"single-numa\" is not a topology manager policy", false, nil},
	}
	for _, tc := range cases {
		o := good()
		tc.change(o)
		info, faults := NewNumaInfo(o)
		// An unusable CPU entry is also missing for the allocatable set.
		if len(faults) == 0 || !strings.HasPrefix(faults[0].Error(), tc.fault) || !tc.unusable && len(faults) != 1 {
			t.Errorf("%s: faults %v, want one starting %q", tc.name, faults, tc.fault)
		}
		if (info == nil) != tc.unusable {
			t.Errorf("%s: information %+v, unusable %v", tc.name, info, tc.unusable)
		}
		if info != nil && tc.check != nil && !tc.check(info) {
			t.Errorf("%s: read %+v", tc.name, info)
		}
	}
}
