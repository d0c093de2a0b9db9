package dra

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	resourcev1 "k8s.io/api/resource/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/randfill"
)

// filler fills every field of the objects with random values, so a field
// the conversion forgets shows up as a difference after the round trip.
func filler(seed int64) *randfill.Filler {
	return randfill.NewWithSeed(seed).NilChance(0.1).NumElements(1, 3).Funcs(
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewQuantity(c.Int63n(1000), resource.DecimalSI)
		},
		func(r *runtime.RawExtension, c randfill.Continue) {
			r.Raw = []byte(`{"k":"` + c.String(5) + `"}`)
		},
		// A v1beta1 device always has Basic in this direction: v1 cannot
		// express its absence (see convert.go).
		func(d *resourcev1beta1.Device, c randfill.Continue) {
			c.FillNoCustom(d)
			if d.Basic == nil {
				d.Basic = &resourcev1beta1.BasicDevice{}
			}
		},
		// A v1 request with Exactly set names a class, as validation
		// requires; an empty Exactly has no v1beta1 form.
		func(r *resourcev1.DeviceRequest, c randfill.Continue) {
			c.FillNoCustom(r)
			if r.Exactly != nil && r.Exactly.DeviceClassName == "" {
				r.Exactly.DeviceClassName = "class"
			}
		},
	)
}

var quantityEqual = cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })

func TestConvertRoundTripV1beta1(t *testing.T) {
	for seed := int64(0); seed < 50; seed++ {
		f := filler(seed)

		var claim resourcev1beta1.ResourceClaim
		f.Fill(&claim)
		if diff := cmp.Diff(&claim, claimFromV1(claimToV1(&claim)), quantityEqual); diff != "" {
			t.Fatalf("seed %d: ResourceClaim round trip (-in +out):\n%s", seed, diff)
		}

		var slice resourcev1beta1.ResourceSlice
		f.Fill(&slice)
		if diff := cmp.Diff(&slice, sliceFromV1(sliceToV1(&slice)), quantityEqual); diff != "" {
			t.Fatalf("seed %d: ResourceSlice round trip (-in +out):\n%s", seed, diff)
		}

		var class resourcev1beta1.DeviceClass
		f.Fill(&class)
		if diff := cmp.Diff(&class, classFromV1(classToV1(&class)), quantityEqual); diff != "" {
			t.Fatalf("seed %d: DeviceClass round trip (-in +out):\n%s", seed, diff)
		}

		var alloc resourcev1beta1.AllocationResult
		f.Fill(&alloc)
		if diff := cmp.Diff(&alloc, allocationFromV1(allocationToV1(&alloc)), quantityEqual); diff != "" {
			t.Fatalf("seed %d: AllocationResult round trip (-in +out):\n%s", seed, diff)
		}
	}
}

func TestConvertRoundTripV1(t *testing.T) {
	for seed := int64(0); seed < 50; seed++ {
		f := filler(seed)

		var claim resourcev1.ResourceClaim
		f.Fill(&claim)
		if diff := cmp.Diff(&claim, claimToV1(claimFromV1(&claim)), quantityEqual); diff != "" {
			t.Fatalf("seed %d: ResourceClaim round trip (-in +out):\n%s", seed, diff)
		}

		var slice resourcev1.ResourceSlice
		f.Fill(&slice)
		// v1beta1 has no "false" or "" distinct from unset for these.
		if slice.Spec.NodeName != nil && *slice.Spec.NodeName == "" {
			slice.Spec.NodeName = nil
		}
		if slice.Spec.AllNodes != nil && !*slice.Spec.AllNodes {
			slice.Spec.AllNodes = nil
		}
		if diff := cmp.Diff(&slice, sliceToV1(sliceFromV1(&slice)), quantityEqual); diff != "" {
			t.Fatalf("seed %d: ResourceSlice round trip (-in +out):\n%s", seed, diff)
		}
	}
}

// TestConvertShapes checks the three places where the versions differ on a
// hand-written object, so the mapping is visible, not only reversible.
func TestConvertShapes(t *testing.T) {
	yes := true
	beta := &resourcev1beta1.ResourceClaim{Spec: resourcev1beta1.ResourceClaimSpec{Devices: resourcev1beta1.DeviceClaim{
		Requests: []resourcev1beta1.DeviceRequest{{
			Name: "gpu", DeviceClassName: "gpu.example.com", AllocationMode: resourcev1beta1.DeviceAllocationModeExactCount, Count: 2, AdminAccess: &yes,
		}},
	}}}
	v1claim := claimToV1(beta)
	e := v1claim.Spec.Devices.Requests[0].Exactly
	if e == nil || e.DeviceClassName != "gpu.example.com" || e.Count != 2 || e.AllocationMode != resourcev1.DeviceAllocationModeExactCount || e.AdminAccess == nil || !*e.AdminAccess {
		t.Fatalf("request not nested under exactly: %+v", v1claim.Spec.Devices.Requests[0])
	}
	if e.AdminAccess == beta.Spec.Devices.Requests[0].AdminAccess {
		t.Fatalf("conversion shares a pointer with its input")
	}

	str := "a"
	slice := &resourcev1beta1.ResourceSlice{Spec: resourcev1beta1.ResourceSliceSpec{
		Driver: "d", NodeName: "n1",
		Devices: []resourcev1beta1.Device{{Name: "dev", Basic: &resourcev1beta1.BasicDevice{
			Attributes: map[resourcev1beta1.QualifiedName]resourcev1beta1.DeviceAttribute{"model": {StringValue: &str}},
		}}},
	}}
	v1slice := sliceToV1(slice)
	if v1slice.Spec.NodeName == nil || *v1slice.Spec.NodeName != "n1" || v1slice.Spec.AllNodes != nil {
		t.Fatalf("node fields: %+v", v1slice.Spec)
	}
	if got := v1slice.Spec.Devices[0].Attributes["model"].StringValue; got == nil || *got != "a" {
		t.Fatalf("attributes not lifted out of basic: %+v", v1slice.Spec.Devices[0])
	}
}

// TestNarrowSlice checks that fields Kubernetes 1.32 did not have are
// removed, and devices without Basic dropped, before allocation.
func TestNarrowSlice(t *testing.T) {
	var slice resourcev1beta1.ResourceSlice
	f := filler(7)
	f.Fill(&slice)
	slice.Spec.Devices = append(slice.Spec.Devices, resourcev1beta1.Device{Name: "future-type"})
	out := narrowSlice(&slice)
	if out.Spec.PerDeviceNodeSelection != nil || out.Spec.SharedCounters != nil {
		t.Fatalf("slice fields after 1.32 kept: %+v", out.Spec)
	}
	if len(out.Spec.Devices) != len(slice.Spec.Devices)-1 {
		t.Fatalf("got %d devices, want %d", len(out.Spec.Devices), len(slice.Spec.Devices)-1)
	}
	for _, d := range out.Spec.Devices {
		if d.ConsumesCounters != nil || d.NodeName != nil || d.NodeSelector != nil || d.AllNodes != nil || d.Taints != nil ||
			d.BindsToNode != nil || d.BindingConditions != nil || d.BindingFailureConditions != nil || d.AllowMultipleAllocations != nil {
			t.Fatalf("device fields after 1.32 kept: %+v", d)
		}
		for _, c := range d.Capacity {
			if c.RequestPolicy != nil {
				t.Fatalf("capacity request policy kept: %+v", c)
			}
		}
	}
}
