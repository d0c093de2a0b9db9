package dra

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	"k8s.io/dynamic-resource-allocation/structured"
)

func deviceID(driver, pool, device string) structured.DeviceID {
	return structured.MakeDeviceID(driver, pool, device)
}

// schedule runs PreFilter and Filter for pod on node and, if it fits,
// Reserve; it returns the allocation or the first error.
func schedule(t *testing.T, sess *Session, pod *v1.Pod, node *v1.Node) (*PodClaims, *Allocation, error) {
	t.Helper()
	pc, err := sess.PreFilter(pod)
	if err != nil {
		return nil, nil, err
	}
	alloc, err := sess.Filter(context.Background(), pc, node)
	if err != nil {
		return pc, nil, err
	}
	if err := sess.Reserve(pod, pc, node.Name, alloc); err != nil {
		t.Fatalf("Reserve %s: %v", pod.Name, err)
	}
	return pc, alloc, nil
}

func podWithClaim(name, claim string) *v1.Pod {
	return makePod(name, name+"-uid", byName("res", claim))
}

// Two pods with their own claims and one device on the node: the first
// pod's Reserve takes the device, so the second cannot have it in the same
// session; Unreserve of the first gives it back. (kube's "skip-bind" case
// checks the same undo: Reserve, then Unreserve before PreBind.)
func TestReserveHoldsDevicesForLaterPods(t *testing.T) {
	claimA, claimB := makeClaim("claim-a", className), makeClaim("claim-b", className)
	podA, podB := podWithClaim("pod-a", "claim-a"), podWithClaim("pod-b", "claim-b")
	sess := NewSession(NewSnapshot(
		[]*resourcev1beta1.ResourceClaim{claimA, claimB},
		[]*resourcev1beta1.ResourceSlice{workerNodeSlice},
		[]*resourcev1beta1.DeviceClass{deviceClass}))

	_, allocA, err := schedule(t, sess, podA, workerNode)
	if err != nil {
		t.Fatalf("pod-a: %v", err)
	}
	if diff := cmp.Diff(map[string][]string{"default/claim-a": {"some-driver/worker/instance-1"}}, allocA.Devices()); diff != "" {
		t.Fatalf("pod-a devices (-want +got):\n%s", diff)
	}

	// PreFilter after the Reserve sees the device as taken.
	pcB, err := sess.PreFilter(podB)
	if err != nil {
		t.Fatalf("pod-b PreFilter: %v", err)
	}
	if _, err := sess.Filter(context.Background(), pcB, workerNode); !sameStatus(err, &StatusError{UnschedulableAndUnresolvable, "cannot allocate all claims"}) {
		t.Fatalf("pod-b Filter after pod-a's Reserve: %v", describe(err))
	}

	sess.Unreserve(podA)
	// The PodClaims prepared before Unreserve notices it is stale.
	allocB, err := sess.Filter(context.Background(), pcB, workerNode)
	if err != nil {
		t.Fatalf("pod-b Filter after Unreserve: %v", describe(err))
	}
	if got := allocB.Devices()["default/claim-b"]; len(got) != 1 || got[0] != "some-driver/worker/instance-1" {
		t.Fatalf("pod-b devices: %v", got)
	}
	if sess.inUse.Len() != 0 || len(sess.claims) != 0 || len(sess.pods) != 0 {
		t.Fatalf("Unreserve left state: inUse=%v claims=%v pods=%v", sess.inUse, sess.claims, sess.pods)
	}
}

// A PodClaims prepared before another pod's Reserve must not hand out the
// device that Reserve took ("stale" PreFilter), and Reserve refuses an
// Allocation that collides with one reserved meanwhile.
func TestStalePreFilterSeesLaterReserve(t *testing.T) {
	claimA, claimB := makeClaim("claim-a", className), makeClaim("claim-b", className)
	podA, podB := podWithClaim("pod-a", "claim-a"), podWithClaim("pod-b", "claim-b")
	sess := NewSession(NewSnapshot(
		[]*resourcev1beta1.ResourceClaim{claimA, claimB},
		[]*resourcev1beta1.ResourceSlice{workerNodeSlice},
		[]*resourcev1beta1.DeviceClass{deviceClass}))

	pcB, err := sess.PreFilter(podB)
	if err != nil {
		t.Fatal(err)
	}
	allocB, err := sess.Filter(context.Background(), pcB, workerNode)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := schedule(t, sess, podA, workerNode); err != nil {
		t.Fatal(err)
	}
	if _, err := sess.Filter(context.Background(), pcB, workerNode); CodeOf(err) != UnschedulableAndUnresolvable {
		t.Fatalf("stale Filter: %v", describe(err))
	}
	if err := sess.Reserve(podB, pcB, workerNode.Name, allocB); CodeOf(err) != Unschedulable {
		t.Fatalf("Reserve of a colliding allocation: %v", describe(err))
	}
}

// Two pods sharing one claim in one session: the first allocates it, the
// second uses that allocation; both are bound, the first one writing the
// allocation, both adding themselves to reservedFor.
func TestTwoPodsShareOneClaim(t *testing.T) {
	shared := makeClaim("shared", className)
	pod1, pod2 := podWithClaim("pod-1", "shared"), podWithClaim("pod-2", "shared")
	sess := NewSession(NewSnapshot(
		[]*resourcev1beta1.ResourceClaim{shared},
		[]*resourcev1beta1.ResourceSlice{workerNodeSlice},
		[]*resourcev1beta1.DeviceClass{deviceClass}))

	_, alloc1, err := schedule(t, sess, pod1, workerNode)
	if err != nil {
		t.Fatalf("pod-1: %v", err)
	}
	_, alloc2, err := schedule(t, sess, pod2, workerNode)
	if err != nil {
		t.Fatalf("pod-2: %v", err)
	}
	if alloc1.Claims[0].Source != SourceNew || alloc2.Claims[0].Source != SourceSession {
		t.Fatalf("sources: %v %v", alloc1.Claims[0].Source, alloc2.Claims[0].Source)
	}
	if diff := cmp.Diff(alloc1.Devices(), alloc2.Devices()); diff != "" {
		t.Fatalf("pods see different devices (-pod1 +pod2):\n%s", diff)
	}
	// The shared allocation's node selector still applies to pod-2.
	pc2, _ := sess.PreFilter(podWithClaim("pod-3", "shared"))
	if _, err := sess.Filter(context.Background(), pc2, workerNode2); !sameStatus(err, &StatusError{UnschedulableAndUnresolvable, "resourceclaim not available on the node"}) {
		t.Fatalf("pod-3 on worker-2: %v", describe(err))
	}

	// Bind pod-1 then pod-2, each on the claim as the previous write left it.
	store := map[string]*resourcev1beta1.ResourceClaim{"default/shared": shared.DeepCopy()}
	get := func(ns, name string) (*resourcev1beta1.ResourceClaim, error) { return store[ns+"/"+name], nil }
	bind := func(pod *v1.Pod, alloc *Allocation) ClaimWrite {
		t.Helper()
		writes, err := BindClaims(pod, alloc, get)
		if err != nil || len(writes) != 1 {
			t.Fatalf("bind %s: %v %v", pod.Name, writes, err)
		}
		store["default/shared"] = writes[0].Claim
		return writes[0]
	}
	w1 := bind(pod1, alloc1)
	w2 := bind(pod2, alloc2)
	if !w1.Allocate || !w1.AddFinalizer || w2.Allocate || w2.AddFinalizer {
		t.Fatalf("writes: first %+v, second %+v", w1, w2)
	}
	final := store["default/shared"]
	if n := len(final.Status.ReservedFor); n != 2 || final.Status.ReservedFor[0].Name != "pod-1" || final.Status.ReservedFor[1].Name != "pod-2" {
		t.Fatalf("reservedFor: %+v", final.Status.ReservedFor)
	}

	// Binding in the other order works too: pod-2 then writes the
	// allocation it got from the session.
	store["default/shared"] = shared.DeepCopy()
	if w := bind(pod2, alloc2); !w.Allocate {
		t.Fatalf("pod-2 first: %+v", w)
	}
	if w := bind(pod1, alloc1); w.Allocate {
		t.Fatalf("pod-1 second: %+v", w)
	}

	// Unreserving one sharer keeps the allocation for the other; the
	// second Unreserve frees the device.
	sess.Unreserve(pod1)
	if !sess.inUse.Has(deviceID(driver, nodeName, "instance-1")) {
		t.Fatal("device freed while pod-2 still uses the claim")
	}
	sess.Unreserve(pod2)
	if sess.inUse.Len() != 0 || len(sess.claims) != 0 {
		t.Fatalf("state after both Unreserve: %v %v", sess.inUse, sess.claims)
	}
}

// Reservations made earlier in the session count towards reservedFor's
// limit.
func TestReservedForLimitCountsSession(t *testing.T) {
	c := allocatedClaim
	for i := range ReservedForMaxSize - 1 {
		c = reservedFor(c, fmt.Sprintf("pod-%d", i), fmt.Sprintf("uid-%d", i))
	}
	sess := NewSession(NewSnapshot([]*resourcev1beta1.ResourceClaim{c}, nil, nil))
	if _, _, err := schedule(t, sess, podWithClaim("first", claimName), workerNode); err != nil {
		t.Fatalf("last free entry: %v", err)
	}
	if _, err := sess.PreFilter(podWithClaim("second", claimName)); CodeOf(err) != UnschedulableAndUnresolvable {
		t.Fatalf("over the limit: %v", describe(err))
	}
}

// Filter may run for many nodes at once for one pod.
func TestFilterConcurrent(t *testing.T) {
	var nodes []*v1.Node
	var slices []*resourcev1beta1.ResourceSlice
	for i := range 16 {
		n := makeNode(fmt.Sprintf("node-%d", i))
		nodes = append(nodes, n)
		slices = append(slices, makeSlice(n.Name, driver, device("gpu-0", nil), device("gpu-1", nil)))
	}
	sess := NewSession(NewSnapshot([]*resourcev1beta1.ResourceClaim{pendingClaim}, slices, []*resourcev1beta1.DeviceClass{deviceClass}))
	pc, err := sess.PreFilter(podWithClaimName)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, len(nodes))
	allocs := make([]*Allocation, len(nodes))
	for i, n := range nodes {
		wg.Go(func() { allocs[i], errs[i] = sess.Filter(context.Background(), pc, n) })
	}
	wg.Wait()
	for i := range nodes {
		if errs[i] != nil {
			t.Fatalf("node %d: %v", i, errs[i])
		}
		want := fmt.Sprintf("some-driver/node-%d/gpu-0", i)
		if got := allocs[i].Devices()["default/my-pod-my-resource"]; len(got) != 1 || got[0] != want {
			t.Fatalf("node %d: %v, want %s", i, got, want)
		}
	}
}

func TestFilterCancelled(t *testing.T) {
	sess := NewSession(NewSnapshot([]*resourcev1beta1.ResourceClaim{pendingClaim}, []*resourcev1beta1.ResourceSlice{workerNodeSlice}, []*resourcev1beta1.DeviceClass{deviceClass}))
	pc, err := sess.PreFilter(podWithClaimName)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := sess.Filter(ctx, pc, workerNode); CodeOf(err) != Error {
		t.Fatalf("cancelled Filter: %v", describe(err))
	}
}

// A sharer that filtered against another pod's session allocation cannot
// reserve once that allocation was undone.
func TestReserveAfterSharedAllocationUndone(t *testing.T) {
	shared := makeClaim("shared", className)
	pod1, pod2 := podWithClaim("pod-1", "shared"), podWithClaim("pod-2", "shared")
	sess := NewSession(NewSnapshot(
		[]*resourcev1beta1.ResourceClaim{shared},
		[]*resourcev1beta1.ResourceSlice{workerNodeSlice},
		[]*resourcev1beta1.DeviceClass{deviceClass}))
	if _, _, err := schedule(t, sess, pod1, workerNode); err != nil {
		t.Fatal(err)
	}
	pc2, err := sess.PreFilter(pod2)
	if err != nil {
		t.Fatal(err)
	}
	alloc2, err := sess.Filter(context.Background(), pc2, workerNode)
	if err != nil {
		t.Fatal(err)
	}
	sess.Unreserve(pod1)
	if err := sess.Reserve(pod2, pc2, workerNode.Name, alloc2); CodeOf(err) != Unschedulable {
		t.Fatalf("Reserve: %v", describe(err))
	}
	if len(sess.claims) != 0 || sess.inUse.Len() != 0 {
		t.Fatalf("refused Reserve changed the session: %v %v", sess.claims, sess.inUse)
	}
}
