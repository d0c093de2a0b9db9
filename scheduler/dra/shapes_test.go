package dra

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	"k8s.io/utils/ptr"
)

// Filter's answers match new searches (checkAgainstNewSearch in
// answers_test.go) also where nodes of one shape share them: nodes alike,
// nodes with a second driver, a node with an older generation of its pool,
// a node whose devices differ, and a node with two pools of one driver
// (which does not share).
func TestShapeAnswersMatchNewSearch(t *testing.T) {
	model := func(name, value string) resourcev1beta1.Device {
		return device(name, map[resourcev1beta1.QualifiedName]resourcev1beta1.DeviceAttribute{"model": {StringValue: ptr.To(value)}})
	}
	var nodes []*v1.Node
	var slicesIn []*resourcev1beta1.ResourceSlice
	for i := range 7 {
		n := makeNode(fmt.Sprintf("n%d", i))
		nodes = append(nodes, n)
		m := "a"
		if i == 4 {
			m = "b"
		}
		gpus := makeSlice(n.Name, driver, model("d0", m), model("d1", m), model("d2", m))
		gpus.Spec.Pool.Generation = 2
		nic := makeSlice(n.Name, "nic-driver", device("nic0", nil))
		nic.Spec.Pool.Name = n.Name + "-nic"
		slicesIn = append(slicesIn, gpus, nic)
		switch i {
		case 3:
			old := makeSlice(n.Name, driver, model("gone", "a"))
			old.Name += "-old"
			old.Spec.Pool.Generation = 1
			slicesIn = append(slicesIn, old)
		case 5:
			slicesIn = append(slicesIn, poolSliceOn(n.Name, "extra", model("e0", "a")))
		}
	}
	gpu := classWithSelector(deviceClass, celSelector(`device.driver == "`+driver+`"`))
	nic := classWithSelector(deviceClass, celSelector(`device.driver == "nic-driver"`))
	nic.Name = "nic"
	specs := []func(name string) *resourcev1beta1.ResourceClaim{
		func(name string) *resourcev1beta1.ResourceClaim { return makeClaim(name, className) },
		func(name string) *resourcev1beta1.ResourceClaim {
			return withCount(makeClaim(name, className), resourcev1beta1.DeviceAllocationModeExactCount, 2)
		},
		func(name string) *resourcev1beta1.ResourceClaim {
			return withSelector(makeClaim(name, className), celSelector(`device.attributes["`+driver+`"].model == "a"`))
		},
		func(name string) *resourcev1beta1.ResourceClaim {
			c := makeClaim(name, className)
			c.Spec.Devices.Requests = append(c.Spec.Devices.Requests, resourcev1beta1.DeviceRequest{
				Name: "nic", DeviceClassName: "nic", AllocationMode: resourcev1beta1.DeviceAllocationModeExactCount, Count: 1,
			})
			return c
		},
	}
	sess := checkAgainstNewSearch(t, nodes, slicesIn, []*resourcev1beta1.DeviceClass{gpu, nic}, specs)
	ids := make([]int, len(nodes))
	for i, n := range nodes {
		ids[i] = sess.shapeOf(n).id
	}
	if ids[0] < 0 || ids[1] != ids[0] || ids[2] != ids[0] || ids[6] != ids[0] || ids[3] < 0 || ids[3] == ids[0] || ids[4] < 0 || ids[4] == ids[0] || ids[5] != -1 {
		t.Errorf("shapes: %v", ids)
	}
	if len(sess.shapeAnswers) == 0 {
		t.Error("no answers shared between nodes")
	}
}
