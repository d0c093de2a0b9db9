package e2e

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/e2e/harness"
)

// The DRA drivers whose devices the tests publish, as a driver's kubelet
// plugin would: nothing runs them, the scheduler only reads their slices.
const (
	gpuDriver = "gpu.e2e.caldera.dev"
	nicDriver = "nic.e2e.caldera.dev"
)

// noDevice is how a node that cannot give a pod's claims their devices is
// counted, as kube-scheduler 1.32 words it.
const noDevice = "cannot allocate all claims"

// claimOf is a pod's spec.resourceClaims entry naming the ResourceClaim
// claim under name.
func claimOf(name, claim string) []v1.PodResourceClaim {
	return []v1.PodResourceClaim{{Name: name, ResourceClaimName: &claim}}
}

// TestDRAClaimGetsDeviceOnSliceNode: three nodes; a DeviceClass whose CEL
// selector takes the devices of one driver, which publishes a
// ResourceSlice of three devices on the third node only, that node also the
// busiest (a filler takes 3 of its 4 cpus), so that Volcano's default
// scoring ranks it last; another driver publishes devices on the first,
// which the class does not select. A Volcano job's pod referencing a
// ResourceClaim of that class is bound to the slice's node, and the claim
// shows what kube-scheduler would have written: the delete-protection
// finalizer, then an allocation of one device of that pool with that
// node's selector and the pod in status.reservedFor, all before the pod's
// Binding.
func TestDRAClaimGetsDeviceOnSliceNode(t *testing.T) {
	tc := harness.NewTest(t)
	nodes := tc.CreateNodes(3, harness.NodeSpec{CPU: "4", Memory: "16Gi", Pods: 110})
	sliceNode := nodes[2]
	tc.StartScheduler(schedulerConf(t, "dra.yaml"))

	tc.CreatePods(harness.Pods{Prefix: "filler", Count: 1, CPU: "3", Memory: "12Gi", Affinity: onNode(sliceNode)})
	waitPods(t, tc, "filler", 1, harness.Running, "bound and Running")

	class := tc.CreateDeviceClass("gpu", gpuDriver)
	devices := []string{"gpu-0", "gpu-1", "gpu-2"}
	slice := tc.CreateResourceSlice("gpus", gpuDriver, sliceNode, sliceNode, devices...)
	tc.CreateResourceSlice("nics", nicDriver, nodes[0], nodes[0], "nic-0", "nic-1")
	claim := tc.CreateResourceClaim("gpu", class)

	// Watched from before the pod exists: the first moment each write
	// shows, with the etcd revision of the write that made it.
	byName := metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", claim.Name).String()}
	finalized := firstSighting(t, tc, tc.Kube.ResourceV1beta1().ResourceClaims(tc.Namespace).Watch, byName,
		func(c *resourcev1beta1.ResourceClaim) bool {
			return slices.Contains(c.Finalizers, resourcev1beta1.Finalizer)
		})
	allocated := firstSighting(t, tc, tc.Kube.ResourceV1beta1().ResourceClaims(tc.Namespace).Watch, byName,
		func(c *resourcev1beta1.ResourceClaim) bool { return c.Status.Allocation != nil })
	reserved := firstSighting(t, tc, tc.Kube.ResourceV1beta1().ResourceClaims(tc.Namespace).Watch, byName,
		func(c *resourcev1beta1.ResourceClaim) bool { return len(c.Status.ReservedFor) > 0 })
	podBound := firstSighting(t, tc, tc.Kube.CoreV1().Pods(tc.Namespace).Watch,
		metav1.ListOptions{LabelSelector: harness.SetLabel + "=app"}, harness.Bound)

	tc.CreatePodGroup("app", v1beta1.PodGroupSpec{MinMember: 1, Queue: "default"})
	created := time.Now()
	tc.CreatePods(harness.Pods{Prefix: "app", Count: 1, CPU: "1", Memory: "1Gi", PodGroup: "app",
		ResourceClaimsOf: func(int) []v1.PodResourceClaim { return claimOf("gpu", claim.Name) }})

	waitPods(t, tc, "app", 1, harness.Bound, "bound")
	pod := tc.ListPods("app")[0]
	if pod.Spec.NodeName != sliceNode {
		t.Fatalf("%s was bound to %s, want %s: the only node with devices of class %s (ResourceSlice %s)", pod.Name, pod.Spec.NodeName, sliceNode, class, slice.Name)
	}

	c, err := tc.ResourceClaim(claim.Name)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(c.Finalizers, resourcev1beta1.Finalizer) {
		t.Errorf("claim %s: finalizers %q, want %s among them", c.Name, c.Finalizers, resourcev1beta1.Finalizer)
	}
	alloc := c.Status.Allocation
	if alloc == nil {
		t.Fatalf("claim %s is not allocated, though %s is bound", c.Name, pod.Name)
	}
	if r := alloc.Devices.Results; len(r) != 1 || r[0].Request != "device" || r[0].Driver != gpuDriver || r[0].Pool != sliceNode || !slices.Contains(devices, r[0].Device) {
		t.Errorf("claim %s: allocation results %+v, want one device of %v for request \"device\", driver %s, pool %s", c.Name, r, devices, gpuDriver, sliceNode)
	} else {
		t.Logf("claim %s allocated %s/%s/%s", c.Name, r[0].Driver, r[0].Pool, r[0].Device)
	}
	wantSelector := &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchFields: []v1.NodeSelectorRequirement{{
		Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{sliceNode},
	}}}}}
	if !equality.Semantic.DeepEqual(alloc.NodeSelector, wantSelector) {
		t.Errorf("claim %s: allocation's node selector %+v, want %+v", c.Name, alloc.NodeSelector, wantSelector)
	}
	wantReserved := []resourcev1beta1.ResourceClaimConsumerReference{{Resource: "pods", Name: pod.Name, UID: pod.UID}}
	if !equality.Semantic.DeepEqual(c.Status.ReservedFor, wantReserved) {
		t.Errorf("claim %s: reservedFor %+v, want %+v", c.Name, c.Status.ReservedFor, wantReserved)
	}

	// One etcd, so revisions order the writes: the finalizer (a metadata
	// update), then the allocation and the reservation (one status
	// update), then the Binding.
	f, a, r, p := finalized.get(t), allocated.get(t), reserved.get(t), podBound.get(t)
	if f.rev >= a.rev {
		t.Errorf("the claim got its allocation at revision %d, its finalizer only at %d: an allocated claim was unprotected", a.rev, f.rev)
	}
	if a.rev >= p.rev || r.rev >= p.rev {
		t.Errorf("the pod was bound at revision %d, the claim allocated at %d and reserved at %d: the Binding came before the claim's writes", p.rev, a.rev, r.rev)
	}
	t.Logf("from the pod's creation: claim's finalizer seen after %s, allocation after %s, reservation after %s, pod bound after %s (revisions %d, %d, %d, %d)",
		f.at.Sub(created).Round(time.Millisecond), a.at.Sub(created).Round(time.Millisecond),
		r.at.Sub(created).Round(time.Millisecond), p.at.Sub(created).Round(time.Millisecond), f.rev, a.rev, r.rev, p.rev)
}

// TestDRAGangMoreClaimsThanDevices: a gang of four (minMember 4), each pod
// with a ResourceClaim of its own for one device, and three devices in the
// whole cluster (two on one node, one on another; the third node has none,
// and cpu is plentiful everywhere). No pod is bound, and no claim is
// written to at all, not even for a moment (a watch from before the pods
// exist sees every write): the three members that found a device in the
// session gave it back with the gang. The pods and the PodGroup say why, in
// Volcano's words: the member left without a device is Unschedulable with
// "0/3 nodes are unavailable: 3 cannot allocate all claims.", the others
// "can possibly be assigned to <node>, once minAvailable is satisfied",
// and the PodGroup's Unschedulable condition counts "1/4 tasks in gang
// unschedulable" and quotes the first.
func TestDRAGangMoreClaimsThanDevices(t *testing.T) {
	tc := harness.NewTest(t)
	nodes := tc.CreateNodes(3, harness.NodeSpec{CPU: "8", Memory: "32Gi", Pods: 110})
	tc.StartScheduler(schedulerConf(t, "dra.yaml"))

	class := tc.CreateDeviceClass("gpu", gpuDriver)
	tc.CreateResourceSlice("gpus-a", gpuDriver, nodes[0], nodes[0], "gpu-0", "gpu-1")
	tc.CreateResourceSlice("gpus-b", gpuDriver, nodes[1], nodes[1], "gpu-0")
	const size = 4
	for i := range size {
		tc.CreateResourceClaim(fmt.Sprintf("gpu-%d", i), class)
	}

	written := firstSighting(t, tc, tc.Kube.ResourceV1beta1().ResourceClaims(tc.Namespace).Watch, metav1.ListOptions{},
		func(c *resourcev1beta1.ResourceClaim) bool {
			return c.Status.Allocation != nil || len(c.Status.ReservedFor) > 0 || len(c.Finalizers) > 0
		})
	bound := firstSighting(t, tc, tc.Kube.CoreV1().Pods(tc.Namespace).Watch, metav1.ListOptions{}, harness.Bound)

	tc.CreatePodGroup("gang", v1beta1.PodGroupSpec{MinMember: size, Queue: "default"})
	tc.CreatePods(harness.Pods{Prefix: "gang", Count: size, CPU: "1", Memory: "1Gi", PodGroup: "gang",
		ResourceClaimsOf: func(i int) []v1.PodResourceClaim { return claimOf("gpu", fmt.Sprintf("gpu-%d", i)) }})

	// Every pod says why it waits, and so does the PodGroup.
	harness.Eventually(t, timeout, func() (bool, string) {
		pods := tc.ListPods("gang")
		var waiting []string
		for i := range pods {
			if c := podScheduledFalse(&pods[i]); c != nil {
				waiting = append(waiting, pods[i].Name)
			}
		}
		return len(waiting) == size, fmt.Sprintf("%d of %d pods have PodScheduled False (%v)", len(waiting), size, waiting)
	})
	harness.Eventually(t, timeout, func() (bool, string) {
		pg, err := tc.PodGroup("gang")
		if err != nil {
			return false, err.Error()
		}
		c := podGroupCondition(pg, v1beta1.PodGroupUnschedulableType)
		return c != nil && c.Status == v1.ConditionTrue && strings.Contains(c.Message, noDevice),
			fmt.Sprintf("PodGroup gang: phase %q, conditions %+v, want Unschedulable saying %q", pg.Status.Phase, pg.Status.Conditions, noDevice)
	})

	// A few more scheduling periods (1s each): still nothing.
	time.Sleep(5 * time.Second)
	for _, so := range []struct {
		what string
		s    *sightingOf
	}{{"a claim got a finalizer, an allocation or a reservation", written}, {"a pod was bound", bound}} {
		select {
		case <-so.s.done:
			if so.s.err != nil {
				t.Fatal(so.s.err)
			}
			t.Errorf("%s (revision %d), though the gang of %d can have only 3 devices", so.what, so.s.s.rev, size)
		default:
		}
	}
	// The members that found a device are told they could go to its node
	// (Volcano's words), two to the node with two devices and one to the
	// other; the last finds no device anywhere.
	var unschedulable int
	placed := map[string]int{}
	for _, p := range tc.ListPods("gang") {
		c := podScheduledFalse(&p)
		switch {
		case harness.Bound(&p):
			t.Errorf("%s is bound to %s", p.Name, p.Spec.NodeName)
			continue
		case c == nil:
			t.Errorf("%s: conditions %+v, want PodScheduled False", p.Name, p.Status.Conditions)
			continue
		}
		t.Logf("%s: PodScheduled False, %s: %s", p.Name, c.Reason, c.Message)
		switch {
		case c.Reason == v1.PodReasonUnschedulable && strings.Contains(c.Message, "0/3 nodes are unavailable: 3 "+noDevice):
			unschedulable++
		case c.Reason == "Schedulable" && strings.HasSuffix(c.Message, "once minAvailable is satisfied"):
			for _, n := range nodes {
				if strings.Contains(c.Message, "assigned to "+n+",") {
					placed[n]++
				}
			}
		default:
			t.Errorf("%s: PodScheduled False, %s: %q; want Unschedulable for want of a device, or Schedulable once minAvailable is satisfied", p.Name, c.Reason, c.Message)
		}
	}
	if want := map[string]int{nodes[0]: 2, nodes[1]: 1}; unschedulable != 1 || !maps.Equal(placed, want) {
		t.Errorf("%d pods unschedulable for want of a device, the others would go to %v; want 1, and %v", unschedulable, placed, want)
	}
	for i := range size {
		c, err := tc.ResourceClaim(fmt.Sprintf("gpu-%d", i))
		if err != nil {
			t.Fatal(err)
		}
		if c.Status.Allocation != nil || len(c.Status.ReservedFor) > 0 || len(c.Finalizers) > 0 {
			t.Errorf("claim %s: allocation %+v, reservedFor %+v, finalizers %q; want none", c.Name, c.Status.Allocation, c.Status.ReservedFor, c.Finalizers)
		}
	}
	pg, err := tc.PodGroup("gang")
	if err != nil {
		t.Fatal(err)
	}
	if pg.Status.Phase == v1beta1.PodGroupRunning {
		t.Errorf("PodGroup gang is %s", pg.Status.Phase)
	}
	for _, c := range pg.Status.Conditions {
		t.Logf("PodGroup gang (phase %s): %s %s, %s: %s", pg.Status.Phase, c.Type, c.Status, c.Reason, c.Message)
	}
}

// podScheduledFalse returns the pod's PodScheduled condition when it is
// False (the scheduler explained why the pod waits), else nil.
func podScheduledFalse(p *v1.Pod) *v1.PodCondition {
	for i, c := range p.Status.Conditions {
		if c.Type == v1.PodScheduled && c.Status == v1.ConditionFalse && strings.TrimSpace(c.Message) != "" {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}
