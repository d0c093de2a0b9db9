package dra

import (
	"context"
	"math/rand"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// poolSlice publishes devices of pool on node worker.
func poolSlice(pool string, generation int64, devices ...string) *resourcev1beta1.ResourceSlice {
	s := &resourcev1beta1.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: pool + "-slice"},
		Spec: resourcev1beta1.ResourceSliceSpec{
			Driver:   driver,
			NodeName: nodeName,
			Pool:     resourcev1beta1.ResourcePool{Name: pool, Generation: generation, ResourceSliceCount: 1},
		},
	}
	for _, d := range devices {
		s.Spec.Devices = append(s.Spec.Devices, device(d, nil))
	}
	return s
}

func withCount(c *resourcev1beta1.ResourceClaim, mode resourcev1beta1.DeviceAllocationMode, n int64) *resourcev1beta1.ResourceClaim {
	c = c.DeepCopy()
	c.Spec.Devices.Requests[0].AllocationMode = mode
	c.Spec.Devices.Requests[0].Count = n
	return c
}

// TestDeterministicAcrossPools: with two pools of one driver on the node
// the allocator alone picks a pool at random; the result here is the one
// kube gives when it happens to visit the pools in name order, every time,
// whatever the order of the input lists.
func TestDeterministicAcrossPools(t *testing.T) {
	// "b-pool" sorts after "a-pool"; a stale generation of "a-pool" with
	// a device of its own must be ignored.
	slices := []*resourcev1beta1.ResourceSlice{
		poolSlice("b-pool", 1, "dev-0", "dev-1"),
		poolSlice("a-pool", 2, "dev-0", "dev-1"),
		func() *resourcev1beta1.ResourceSlice {
			s := poolSlice("a-pool", 1, "old")
			s.Name = "a-pool-old"
			return s
		}(),
	}
	busy := allocated(otherClaim, &resourcev1beta1.AllocationResult{Devices: resourcev1beta1.DeviceAllocationResult{
		Results: []resourcev1beta1.DeviceRequestAllocationResult{{Driver: driver, Pool: "a-pool", Device: "dev-0", Request: "req-1"}},
	}})
	cases := map[string]struct {
		claims []*resourcev1beta1.ResourceClaim
		want   []string
	}{
		"one device": {
			claims: []*resourcev1beta1.ResourceClaim{pendingClaim},
			want:   []string{"some-driver/a-pool/dev-0"},
		},
		"three devices span both pools": {
			claims: []*resourcev1beta1.ResourceClaim{withCount(pendingClaim, resourcev1beta1.DeviceAllocationModeExactCount, 3)},
			want:   []string{"some-driver/a-pool/dev-0", "some-driver/a-pool/dev-1", "some-driver/b-pool/dev-0"},
		},
		"busy device in a merged pool is skipped": {
			claims: []*resourcev1beta1.ResourceClaim{pendingClaim, busy},
			want:   []string{"some-driver/a-pool/dev-1"},
		},
		"all devices in pool order": {
			claims: []*resourcev1beta1.ResourceClaim{withCount(pendingClaim, resourcev1beta1.DeviceAllocationModeAll, 0)},
			want:   []string{"some-driver/a-pool/dev-0", "some-driver/a-pool/dev-1", "some-driver/b-pool/dev-0", "some-driver/b-pool/dev-1"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := rand.New(rand.NewSource(1))
			for range 30 {
				shuffled := append([]*resourcev1beta1.ResourceSlice(nil), slices...)
				r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
				sess := NewSession(NewSnapshot(tc.claims, shuffled, []*resourcev1beta1.DeviceClass{deviceClass}))
				pc, err := sess.PreFilter(podWithClaimName)
				if err != nil {
					t.Fatal(err)
				}
				alloc, err := sess.Filter(context.Background(), pc, workerNode)
				if err != nil {
					t.Fatalf("Filter: %v", describe(err))
				}
				if diff := cmp.Diff(tc.want, alloc.Devices()["default/my-pod-my-resource"]); diff != "" {
					t.Fatalf("devices (-want +got):\n%s", diff)
				}
				// The node selector comes from the real slices.
				if ns := alloc.Claims[0].Result.NodeSelector; ns == nil || ns.NodeSelectorTerms[0].MatchFields[0].Values[0] != nodeName {
					t.Fatalf("node selector: %v", ns)
				}
			}
		})
	}
}

// A merged pool is incomplete when one member is, which matters only to
// allocation mode All; the error names the member pools.
func TestMergedPoolIncomplete(t *testing.T) {
	incomplete := poolSlice("b-pool", 1, "dev-0")
	incomplete.Spec.Pool.ResourceSliceCount = 2
	slices := []*resourcev1beta1.ResourceSlice{poolSlice("a-pool", 1, "dev-0"), incomplete}
	claims := []*resourcev1beta1.ResourceClaim{withCount(pendingClaim, resourcev1beta1.DeviceAllocationModeAll, 0)}
	sess := NewSession(NewSnapshot(claims, slices, []*resourcev1beta1.DeviceClass{deviceClass}))
	pc, err := sess.PreFilter(podWithClaimName)
	if err != nil {
		t.Fatal(err)
	}
	_, err = sess.Filter(context.Background(), pc, workerNode)
	if CodeOf(err) != Error || !strings.Contains(err.Error(), "resource pool some-driver/a-pool+b-pool is currently being updated") {
		t.Fatalf("Filter: %v", describe(err))
	}

	// Exact counts may still use an incomplete pool, as in kube.
	claims = []*resourcev1beta1.ResourceClaim{withCount(pendingClaim, resourcev1beta1.DeviceAllocationModeExactCount, 2)}
	sess = NewSession(NewSnapshot(claims, slices, []*resourcev1beta1.DeviceClass{deviceClass}))
	pc, _ = sess.PreFilter(podWithClaimName)
	alloc, err := sess.Filter(context.Background(), pc, workerNode)
	if err != nil {
		t.Fatalf("Filter: %v", describe(err))
	}
	if got := alloc.Devices()["default/my-pod-my-resource"]; len(got) != 2 {
		t.Fatalf("devices: %v", got)
	}
}

// Pools that do not reach the node are not merged, and slices fields of
// later releases do not change what 1.32 does: a device that consumes
// counters is an ordinary device for it.
func TestOnlyReachablePoolsMerge(t *testing.T) {
	other := poolSlice("a-pool", 1, "dev-0")
	other.Spec.NodeName = node2Name
	mine := poolSlice("b-pool", 1, "dev-0")
	mine.Spec.Devices[0].Basic.ConsumesCounters = []resourcev1beta1.DeviceCounterConsumption{{CounterSet: "set"}}
	mine.Spec.SharedCounters = []resourcev1beta1.CounterSet{{Name: "set"}}
	sess := NewSession(NewSnapshot([]*resourcev1beta1.ResourceClaim{pendingClaim}, []*resourcev1beta1.ResourceSlice{other, mine}, []*resourcev1beta1.DeviceClass{deviceClass}))
	pc, _ := sess.PreFilter(podWithClaimName)
	view := sess.snap.viewForNode(workerNode, nil)
	if view.renamed != nil {
		t.Fatalf("merged although only one pool reaches the node")
	}
	alloc, err := sess.Filter(context.Background(), pc, workerNode)
	if err != nil {
		t.Fatalf("Filter: %v", describe(err))
	}
	if diff := cmp.Diff([]string{"some-driver/b-pool/dev-0"}, alloc.Devices()["default/my-pod-my-resource"]); diff != "" {
		t.Fatalf("devices (-want +got):\n%s", diff)
	}
}
