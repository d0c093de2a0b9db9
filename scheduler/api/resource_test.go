package api

import (
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Quantities too large for int64 (in milli-units, or bytes) are counted as
// the huge amounts they are, never wrapped to 0 or below: a pod asking for
// them is short of them on a 4-cpu node with no GPU, and a node reporting
// them has them.
func TestQuantitiesBeyondInt64DoNotWrap(t *testing.T) {
	const gpu = v1.ResourceName("nvidia.com/gpu")
	node := NewNodeInfo(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Status: v1.NodeStatus{Allocatable: v1.ResourceList{
		v1.ResourceCPU: resource.MustParse("4"), v1.ResourceMemory: resource.MustParse("16Gi"), v1.ResourcePods: resource.MustParse("110"),
	}}})
	for name, req := range map[string]v1.ResourceList{
		"cpu 1e16":              {v1.ResourceCPU: resource.MustParse("1e16")},
		"cpu 2^63-1":            {v1.ResourceCPU: resource.MustParse("9223372036854775807")},
		"memory 1e19":           {v1.ResourceMemory: resource.MustParse("1e19")},
		"nvidia.com/gpu 1e16":   {gpu: resource.MustParse("1e16")},
		"gpu 1e16 beside 1 cpu": {v1.ResourceCPU: resource.MustParse("1"), gpu: resource.MustParse("1e16")},
	} {
		want := map[string]string{"cpu 1e16": "cpu", "cpu 2^63-1": "cpu", "memory 1e19": "memory"}[name]
		if want == "" {
			want = string(gpu)
		}
		r := NewResource(req)
		if dims := r.InsufficientDimensions(node.Idle); !slices.Contains(dims, want) {
			t.Errorf("%s: short of %v on a 4-cpu node without GPUs, want %s among them (request %+v)", name, dims, want, r)
		}
	}
	huge := NewNodeInfo(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n2"}, Status: v1.NodeStatus{Allocatable: v1.ResourceList{
		v1.ResourceMemory: resource.MustParse("1e30"),
	}}})
	if got := huge.Allocatable.Memory; got < 1e29 {
		t.Errorf("a node of 1e30 bytes of memory has %g", got)
	}
}
