package dra

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	"k8s.io/utils/ptr"
)

// filterDevices runs PreFilter and Filter for pod on node and returns the
// devices of its one claim and that claim's result.
func filterDevices(t *testing.T, sess *Session, pod *v1.Pod, node *v1.Node) ([]string, *resourcev1beta1.AllocationResult, error) {
	t.Helper()
	pc, err := sess.PreFilter(pod)
	if err != nil {
		t.Fatalf("PreFilter %s: %v", pod.Name, err)
	}
	alloc, err := sess.Filter(context.Background(), pc, node)
	if err != nil {
		return nil, nil, err
	}
	if len(alloc.Claims) != 1 || alloc.Claims[0].Name != *pod.Spec.ResourceClaims[0].ResourceClaimName {
		t.Fatalf("%s: allocation for %+v", pod.Name, alloc.Claims)
	}
	return DeviceNames(alloc.Claims[0].Result), alloc.Claims[0].Result, nil
}

// Pods whose claims have equal specs share the allocator's answer for a
// node until that node's devices change: a Reserve there makes the next
// pod see the device taken, a Reserve on another node leaves the answer as
// it was (the very same result is served), and Unreserve gives the device
// back.
func TestAnswerFollowsReserveOnItsNode(t *testing.T) {
	worker := makeSlice(nodeName, driver, device("instance-1", nil), device("instance-2", nil))
	worker2 := makeSlice(node2Name, driver, device("instance-1", nil))
	var claims []*resourcev1beta1.ResourceClaim
	var pods []*v1.Pod
	for _, name := range []string{"a", "b", "c"} {
		claims = append(claims, makeClaim("claim-"+name, className))
		pods = append(pods, podWithClaim("pod-"+name, "claim-"+name))
	}
	podA, podB, podC := pods[0], pods[1], pods[2]
	sess := NewSession(NewSnapshot(claims, []*resourcev1beta1.ResourceSlice{worker, worker2}, []*resourcev1beta1.DeviceClass{deviceClass}))

	devA, resA, err := filterDevices(t, sess, podA, workerNode)
	if err != nil || !slices.Equal(devA, []string{"some-driver/worker/instance-1"}) {
		t.Fatalf("pod-a: %v %v", devA, describe(err))
	}
	devB, resB, err := filterDevices(t, sess, podB, workerNode)
	if err != nil || !slices.Equal(devB, devA) || resB != resA {
		t.Fatalf("pod-b before any Reserve: %v %v (shared answer: %v)", devB, describe(err), resB == resA)
	}

	if _, _, err := schedule(t, sess, podA, workerNode); err != nil {
		t.Fatal(err)
	}
	devB, resB, err = filterDevices(t, sess, podB, workerNode)
	if err != nil || !slices.Equal(devB, []string{"some-driver/worker/instance-2"}) {
		t.Fatalf("pod-b after pod-a's Reserve on its node: %v %v", devB, describe(err))
	}

	if _, _, err := schedule(t, sess, podC, workerNode2); err != nil {
		t.Fatal(err)
	}
	devB2, resB2, err := filterDevices(t, sess, podB, workerNode)
	if err != nil || !slices.Equal(devB2, devB) || resB2 != resB {
		t.Fatalf("pod-b after a Reserve on another node: %v %v (kept answer: %v)", devB2, describe(err), resB2 == resB)
	}
	if _, _, err := filterDevices(t, sess, podB, workerNode2); !sameStatus(err, &StatusError{UnschedulableAndUnresolvable, "cannot allocate all claims"}) {
		t.Fatalf("pod-b on the node pod-c took: %v", describe(err))
	}

	sess.Unreserve(podA)
	devB, _, err = filterDevices(t, sess, podB, workerNode)
	if err != nil || !slices.Equal(devB, []string{"some-driver/worker/instance-1"}) {
		t.Fatalf("pod-b after pod-a's Unreserve: %v %v", devB, describe(err))
	}
	sess.Unreserve(podC)
	if devB, _, err = filterDevices(t, sess, podB, workerNode2); err != nil || !slices.Equal(devB, []string{"some-driver/worker-2/instance-1"}) {
		t.Fatalf("pod-b on worker-2 after pod-c's Unreserve: %v %v", devB, describe(err))
	}
}

// A pool that is not tied to one node (here one for all nodes) is seen
// from every node: taking its device on one node changes the answer on
// the others.
func TestAnswerSharedPool(t *testing.T) {
	shared := &resourcev1beta1.ResourceSlice{
		Spec: resourcev1beta1.ResourceSliceSpec{
			Driver: driver, AllNodes: true,
			Pool:    resourcev1beta1.ResourcePool{Name: "network", ResourceSliceCount: 1},
			Devices: []resourcev1beta1.Device{device("net-0", nil)},
		},
	}
	shared.Name = "network"
	claims := []*resourcev1beta1.ResourceClaim{makeClaim("claim-a", className), makeClaim("claim-b", className)}
	podA, podB := podWithClaim("pod-a", "claim-a"), podWithClaim("pod-b", "claim-b")
	sess := NewSession(NewSnapshot(claims, []*resourcev1beta1.ResourceSlice{shared}, []*resourcev1beta1.DeviceClass{deviceClass}))

	if devB, _, err := filterDevices(t, sess, podB, workerNode2); err != nil || !slices.Equal(devB, []string{"some-driver/network/net-0"}) {
		t.Fatalf("pod-b before: %v %v", devB, describe(err))
	}
	if _, _, err := schedule(t, sess, podA, workerNode); err != nil {
		t.Fatal(err)
	}
	if _, _, err := filterDevices(t, sess, podB, workerNode2); !sameStatus(err, &StatusError{UnschedulableAndUnresolvable, "cannot allocate all claims"}) {
		t.Fatalf("pod-b after pod-a took the shared device elsewhere: %v", describe(err))
	}
	sess.Unreserve(podA)
	if devB, _, err := filterDevices(t, sess, podB, workerNode2); err != nil || !slices.Equal(devB, []string{"some-driver/network/net-0"}) {
		t.Fatalf("pod-b after Unreserve: %v %v", devB, describe(err))
	}
}

// Answers are not shared between different specs, nor between two node
// objects of one name, and errors (which name the pod's own claim) are
// not shared at all.
func TestAnswerKeys(t *testing.T) {
	color := func(name, value string) resourcev1beta1.Device {
		return device(name, map[resourcev1beta1.QualifiedName]resourcev1beta1.DeviceAttribute{"color": {StringValue: ptr.To(value)}})
	}
	local := makeSlice(nodeName, driver, color("dev-red", "red"), color("dev-blue", "blue"))
	zoned := &resourcev1beta1.ResourceSlice{
		Spec: resourcev1beta1.ResourceSliceSpec{
			Driver: "zoned-driver",
			NodeSelector: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
				MatchExpressions: []v1.NodeSelectorRequirement{{Key: "zone", Operator: v1.NodeSelectorOpIn, Values: []string{"a"}}},
			}}},
			Pool:    resourcev1beta1.ResourcePool{Name: "zone-a", ResourceSliceCount: 1},
			Devices: []resourcev1beta1.Device{device("z-0", nil)},
		},
	}
	zoned.Name = "zone-a"
	red := withSelector(makeClaim("red", className), celSelector(`device.attributes["`+driver+`"].color == "red"`))
	blue := withSelector(makeClaim("blue", className), celSelector(`device.attributes["`+driver+`"].color == "blue"`))
	zonedClaim := withSelector(makeClaim("zoned", className), celSelector(`device.driver == "zoned-driver"`))
	broken1 := withSelector(makeClaim("broken-1", className), brokenSelector)
	broken2 := withSelector(makeClaim("broken-2", className), brokenSelector)
	sess := NewSession(NewSnapshot(
		[]*resourcev1beta1.ResourceClaim{red, blue, zonedClaim, broken1, broken2},
		[]*resourcev1beta1.ResourceSlice{local, zoned},
		[]*resourcev1beta1.DeviceClass{deviceClass}))

	for _, c := range []struct{ claim, want string }{{"red", "some-driver/worker/dev-red"}, {"blue", "some-driver/worker/dev-blue"}} {
		got, _, err := filterDevices(t, sess, podWithClaim("pod-"+c.claim, c.claim), workerNode)
		if err != nil || !slices.Equal(got, []string{c.want}) {
			t.Fatalf("%s: %v %v", c.claim, got, describe(err))
		}
	}

	inZone := workerNode.DeepCopy()
	inZone.Labels["zone"] = "a"
	if got, _, err := filterDevices(t, sess, podWithClaim("pod-zoned", "zoned"), inZone); err != nil || !slices.Equal(got, []string{"zoned-driver/zone-a/z-0"}) {
		t.Fatalf("zoned on the labelled node: %v %v", got, describe(err))
	}
	if _, _, err := filterDevices(t, sess, podWithClaim("pod-zoned-2", "zoned"), workerNode); !sameStatus(err, &StatusError{UnschedulableAndUnresolvable, "cannot allocate all claims"}) {
		t.Fatalf("zoned on another object of the same node name: %v", describe(err))
	}

	// brokenSelector fails at run time on a device without the attribute
	// ("dev-red" has none of that name).
	for _, name := range []string{"broken-1", "broken-2"} {
		_, _, err := filterDevices(t, sess, podWithClaim("pod-"+name, name), workerNode)
		if !sameStatus(err, &StatusError{Error, fmt.Sprintf("claim default/%s: selector #0: CEL runtime error: *", name)}) {
			t.Fatalf("%s: %v", name, describe(err))
		}
	}
}

// Whatever Filter, Reserve and Unreserve run in whatever order, the
// answer Filter serves is the one a new search would give at that moment.
// The cluster mixes what the answers depend on: node-local pools, a pool
// for all nodes, a pool behind a node selector, two pools of one driver on
// one node (merged, pools.go), claims of several specs, some asking for
// two devices.
func TestAnswersMatchNewSearch(t *testing.T) {
	nodes := []*v1.Node{makeNode("n0"), makeNode("n1"), makeNode("n2")}
	nodes[1].Labels["rack"] = "r1"
	nodes[2].Labels["rack"] = "r1"
	slicesIn := []*resourcev1beta1.ResourceSlice{
		makeSlice("n0", driver, device("d0", nil), device("d1", nil)),
		makeSlice("n1", driver, device("d0", nil)),
		makeSlice("n2", driver, device("d0", nil), device("d1", nil), device("d2", nil)),
		poolSliceOn("n0", "extra", device("e0", nil)),
		{Spec: resourcev1beta1.ResourceSliceSpec{Driver: driver, AllNodes: true,
			Pool: resourcev1beta1.ResourcePool{Name: "net", ResourceSliceCount: 1}, Devices: []resourcev1beta1.Device{device("net0", nil), device("net1", nil)}}},
		{Spec: resourcev1beta1.ResourceSliceSpec{Driver: driver,
			NodeSelector: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "rack", Operator: v1.NodeSelectorOpIn, Values: []string{"r1"}}}}}},
			Pool:         resourcev1beta1.ResourcePool{Name: "rack", ResourceSliceCount: 1}, Devices: []resourcev1beta1.Device{device("r0", nil)}}},
	}
	slicesIn[4].Name, slicesIn[5].Name = "net", "rack"
	specs := []func(name string) *resourcev1beta1.ResourceClaim{
		func(name string) *resourcev1beta1.ResourceClaim { return makeClaim(name, className) },
		func(name string) *resourcev1beta1.ResourceClaim {
			return withCount(makeClaim(name, className), resourcev1beta1.DeviceAllocationModeExactCount, 2)
		},
		func(name string) *resourcev1beta1.ResourceClaim {
			return withSelector(makeClaim(name, className), celSelector(`device.attributes["`+driver+`"].foo == "x" || true`))
		},
	}
	sess := checkAgainstNewSearch(t, nodes, slicesIn, []*resourcev1beta1.DeviceClass{deviceClass}, specs)
	for _, n := range nodes {
		if sh := sess.shapeOf(n); sh.id >= 0 {
			t.Errorf("node %s shares answers, but it sees pools of other nodes", n.Name)
		}
	}
}

// checkAgainstNewSearch runs PreFilter, Filter, Reserve and Unreserve at
// random for pods with one claim each, made by specs in turn, and fails
// unless every Filter answer is the one a new search gives at that moment.
func checkAgainstNewSearch(t *testing.T, nodes []*v1.Node, slicesIn []*resourcev1beta1.ResourceSlice, classes []*resourcev1beta1.DeviceClass, specs []func(string) *resourcev1beta1.ResourceClaim) *Session {
	t.Helper()
	var claims []*resourcev1beta1.ResourceClaim
	var pods []*v1.Pod
	for i := range 24 {
		name := fmt.Sprintf("c%d", i)
		claims = append(claims, specs[i%len(specs)](name))
		pods = append(pods, podWithClaim("p"+name, name))
	}
	sess := NewSession(NewSnapshot(claims, slicesIn, classes))
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	reserved := map[int]bool{}
	seen := map[*resourcev1beta1.AllocationResult]bool{}
	reused := 0
	for step := range 3000 {
		i := rng.IntN(len(pods))
		pod := pods[i]
		if reserved[i] {
			if rng.IntN(3) == 0 {
				sess.Unreserve(pod)
				delete(reserved, i)
			}
			continue
		}
		node := nodes[rng.IntN(len(nodes))]
		pc, err := sess.PreFilter(pod)
		if err != nil {
			t.Fatal(err)
		}
		alloc, err := sess.Filter(ctx, pc, node)
		want, wantErr := sess.search(ctx, pc, node, sess.snap.allocated.Union(sess.inUse))
		if wantErr != nil {
			t.Fatalf("step %d, %s on %s: new search: %v", step, pod.Name, node.Name, wantErr)
		}
		if (err == nil) != (want != nil) {
			t.Fatalf("step %d, %s on %s: Filter gave %v, a new search %v", step, pod.Name, node.Name, describe(err), want)
		}
		if err != nil {
			continue
		}
		if diff := cmp.Diff(allocationFromV1(&want[0]), alloc.Claims[0].Result); diff != "" {
			t.Fatalf("step %d, %s on %s: results differ (-search +Filter):\n%s", step, pod.Name, node.Name, diff)
		}
		if r := alloc.Claims[0].Result; seen[r] {
			reused++
		} else {
			seen[r] = true
		}
		if rng.IntN(3) == 0 {
			if err := sess.Reserve(pod, pc, node.Name, alloc); err != nil {
				t.Fatalf("step %d: Reserve: %v", step, err)
			}
			reserved[i] = true
		}
	}
	if reused < 100 {
		t.Fatalf("only %d answers reused: the test hardly exercises them", reused)
	}
	return sess
}

// poolSliceOn publishes devices of pool on node.
func poolSliceOn(node, pool string, devices ...resourcev1beta1.Device) *resourcev1beta1.ResourceSlice {
	s := makeSlice(node, driver, devices...)
	s.Name = node + "-" + pool
	s.Spec.Pool.Name = pool
	return s
}

// An answer whose search overlapped a Reserve or Unreserve is not kept:
// with Filter running on other goroutines while pods are reserved and
// unreserved, every answer left stored is the one a new search gives.
func TestAnswersStoredDuringReserve(t *testing.T) {
	nodes := []*v1.Node{makeNode("n0"), makeNode("n1")}
	var slicesIn []*resourcev1beta1.ResourceSlice
	for _, n := range nodes {
		slicesIn = append(slicesIn, makeSlice(n.Name, driver, device("d0", nil), device("d1", nil), device("d2", nil)))
	}
	var claims []*resourcev1beta1.ResourceClaim
	var pods []*v1.Pod
	for i := range 6 {
		name := fmt.Sprintf("c%d", i)
		claims = append(claims, makeClaim(name, className))
		pods = append(pods, podWithClaim("p"+name, name))
	}
	sess := NewSession(NewSnapshot(claims, slicesIn, []*resourcev1beta1.DeviceClass{deviceClass}))
	ctx := context.Background()
	pcs := make([]*PodClaims, len(pods))
	for i, pod := range pods {
		var err error
		if pcs[i], err = sess.PreFilter(pod); err != nil {
			t.Fatal(err)
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Go(func() {
			for k := 0; ; k++ {
				select {
				case <-stop:
					return
				default:
				}
				_ = sess.Fits(ctx, pcs[(k+g)%len(pcs)], nodes[k%len(nodes)])
			}
		})
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		i, node := rng.IntN(len(pods)), nodes[rng.IntN(len(nodes))]
		sess.Unreserve(pods[i])
		if alloc, err := sess.Filter(ctx, pcs[i], node); err == nil {
			// Another goroutine's answer may be older than this
			// Filter; Reserve refuses a collision, which is fine here.
			_ = sess.Reserve(pods[i], pcs[i], node.Name, alloc)
		}
	}
	close(stop)
	wg.Wait()
	for _, byNode := range sess.answers {
		for node, a := range byNode {
			want, err := sess.search(ctx, pcs[0], node, sess.snap.allocated.Union(sess.inUse))
			if err != nil {
				t.Fatal(err)
			}
			var got, wantDevices []string
			if a.results != nil {
				got = DeviceNames(a.results[0])
			}
			if want != nil {
				wantDevices = DeviceNames(allocationFromV1(&want[0]))
			}
			if !slices.Equal(got, wantDevices) {
				t.Fatalf("stored answer for %s: %v, a new search: %v", node.Name, got, wantDevices)
			}
		}
	}
}
