package dra

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// wantWrite is an expected ClaimWrite.
type wantWrite struct {
	claim        *resourcev1beta1.ResourceClaim
	addFinalizer bool
	allocate     bool
	devices      []string
}

type pluginCase struct {
	nodes   []*v1.Node // workerNode if unset
	pod     *v1.Pod
	claims  []*resourcev1beta1.ResourceClaim
	classes []*resourcev1beta1.DeviceClass
	slices  []*resourcev1beta1.ResourceSlice
	// atBind changes the claims the binder reads, as another actor might
	// between scheduling and binding (kube's prepare.prebind).
	atBind func(*resourcev1beta1.ResourceClaim)

	wantSkip      bool
	wantPreFilter *StatusError
	// wantFilter gives the expected refusal per node; a missing node fits.
	wantFilter map[string]*StatusError
	// wantWrites are the claim updates for binding to the first node that
	// fits; nil means no write.
	wantWrites []wantWrite
}

// TestPlugin translates the cases of kube-scheduler v1.32.13's
// TestPlugin (pkg/scheduler/framework/plugins/dynamicresources/
// dynamicresources_test.go) that apply to this package; each case names
// its original. Steps that need an API server (PostFilter's deallocation,
// the assume cache) have no counterpart here.
func TestPlugin(t *testing.T) {
	inUseStatus := inUseClaim.Status
	cases := map[string]pluginCase{
		// "empty"
		"empty": {
			pod:      makePod("foo", "foo-uid"),
			wantSkip: true,
		},
		// "claim-reference": an allocated claim referenced by name only
		// gets the pod added to reservedFor.
		"claim-reference": {
			pod:        podWithClaimName,
			claims:     []*resourcev1beta1.ResourceClaim{allocatedClaim, otherClaim},
			wantWrites: []wantWrite{{claim: inUseClaim, devices: []string{"some-driver/worker/instance-1"}}},
		},
		// "claim-template"
		"claim-template": {
			pod:        podWithClaimTemplateInStatus,
			claims:     []*resourcev1beta1.ResourceClaim{allocatedClaim, otherClaim},
			wantWrites: []wantWrite{{claim: inUseClaim, devices: []string{"some-driver/worker/instance-1"}}},
		},
		// "missing-claim": the claim controller has not created the claim.
		"missing-claim": {
			pod:           podWithClaimTemplate,
			claims:        []*resourcev1beta1.ResourceClaim{allocatedClaim, otherClaim},
			wantPreFilter: &StatusError{UnschedulableAndUnresolvable, `pod "default/my-pod": ResourceClaim not created yet`},
		},
		// Not in kube's table: the claim named by the pod does not exist.
		"claim-not-found": {
			pod:           podWithClaimName,
			claims:        []*resourcev1beta1.ResourceClaim{otherClaim},
			wantPreFilter: &StatusError{UnschedulableAndUnresolvable, `could not find ResourceClaim "default/my-pod-my-resource"`},
		},
		// "deleted-claim"
		"deleted-claim": {
			pod: podWithClaimTemplateInStatus,
			claims: func() []*resourcev1beta1.ResourceClaim {
				c := allocatedClaim.DeepCopy()
				c.DeletionTimestamp = &metav1.Time{}
				return []*resourcev1beta1.ResourceClaim{c}
			}(),
			wantPreFilter: &StatusError{UnschedulableAndUnresolvable, `resourceclaim "my-pod-my-resource" is being deleted`},
		},
		// "wrong-claim": a template claim owned by another pod.
		"wrong-claim": {
			pod: podWithClaimTemplateInStatus,
			claims: func() []*resourcev1beta1.ResourceClaim {
				c := allocatedClaim.DeepCopy()
				c.OwnerReferences[0].UID += "123"
				return []*resourcev1beta1.ResourceClaim{c}
			}(),
			wantPreFilter: &StatusError{UnschedulableAndUnresolvable, `ResourceClaim default/my-pod-my-resource was not created for pod default/my-pod (pod is not owner)`},
		},
		// "no-resources": no ResourceSlice at all.
		"no-resources": {
			pod:        podWithClaimName,
			claims:     []*resourcev1beta1.ResourceClaim{pendingClaim},
			classes:    []*resourcev1beta1.DeviceClass{deviceClass},
			wantFilter: map[string]*StatusError{nodeName: {UnschedulableAndUnresolvable, `cannot allocate all claims`}},
		},
		// "with-resources": structured allocation succeeds; binding adds
		// the finalizer first, then allocation and reservation.
		"with-resources": {
			pod:     podWithClaimName,
			claims:  []*resourcev1beta1.ResourceClaim{pendingClaim},
			classes: []*resourcev1beta1.DeviceClass{deviceClass},
			slices:  []*resourcev1beta1.ResourceSlice{workerNodeSlice},
			wantWrites: []wantWrite{{
				claim:        withStatus(allocatedClaim, inUseStatus),
				addFinalizer: true, allocate: true,
				devices: []string{"some-driver/worker/instance-1"},
			}},
		},
		// "with-resources-has-finalizer": the finalizer is already there
		// (an interrupted earlier attempt), so only the status changes.
		"with-resources-has-finalizer": {
			pod: podWithClaimName,
			claims: func() []*resourcev1beta1.ResourceClaim {
				c := pendingClaim.DeepCopy()
				c.Finalizers = allocatedClaim.Finalizers
				return []*resourcev1beta1.ResourceClaim{c}
			}(),
			classes: []*resourcev1beta1.DeviceClass{deviceClass},
			slices:  []*resourcev1beta1.ResourceSlice{workerNodeSlice},
			wantWrites: []wantWrite{{
				claim: withStatus(allocatedClaim, inUseStatus), allocate: true,
				devices: []string{"some-driver/worker/instance-1"},
			}},
		},
		// "with-resources-finalizer-gets-removed": the finalizer vanishes
		// before binding and is added again.
		"with-resources-finalizer-gets-removed": {
			pod: podWithClaimName,
			claims: func() []*resourcev1beta1.ResourceClaim {
				c := pendingClaim.DeepCopy()
				c.Finalizers = allocatedClaim.Finalizers
				return []*resourcev1beta1.ResourceClaim{c}
			}(),
			classes: []*resourcev1beta1.DeviceClass{deviceClass},
			slices:  []*resourcev1beta1.ResourceSlice{workerNodeSlice},
			atBind:  func(c *resourcev1beta1.ResourceClaim) { c.Finalizers = nil },
			wantWrites: []wantWrite{{
				claim:        withStatus(allocatedClaim, inUseStatus),
				addFinalizer: true, allocate: true,
				devices: []string{"some-driver/worker/instance-1"},
			}},
		},
		// "with-resources-finalizer-gets-added": someone else added it.
		"with-resources-finalizer-gets-added": {
			pod:     podWithClaimName,
			claims:  []*resourcev1beta1.ResourceClaim{pendingClaim},
			classes: []*resourcev1beta1.DeviceClass{deviceClass},
			slices:  []*resourcev1beta1.ResourceSlice{workerNodeSlice},
			atBind:  func(c *resourcev1beta1.ResourceClaim) { c.Finalizers = allocatedClaim.Finalizers },
			wantWrites: []wantWrite{{
				claim: withStatus(allocatedClaim, inUseStatus), allocate: true,
				devices: []string{"some-driver/worker/instance-1"},
			}},
		},
		// "exhausted-resources": the only device is held by another claim.
		"exhausted-resources": {
			pod:        podWithClaimName,
			claims:     []*resourcev1beta1.ResourceClaim{pendingClaim, otherAllocatedClaim},
			classes:    []*resourcev1beta1.DeviceClass{deviceClass},
			slices:     []*resourcev1beta1.ResourceSlice{workerNodeSlice},
			wantFilter: map[string]*StatusError{nodeName: {UnschedulableAndUnresolvable, `cannot allocate all claims`}},
		},
		// "request-admin-access": kube's table lists an allocation for it,
		// but runs it with only the DynamicResourceAllocation gate set, so
		// 1.32's allocator fails Filter on the field and the listed
		// allocation is never reached (the test does not compare failure
		// statuses). This package refuses the field in PreFilter.
		"request-admin-access": {
			pod:           podWithClaimName,
			claims:        []*resourcev1beta1.ResourceClaim{adminAccess(pendingClaim), otherAllocatedClaim},
			classes:       []*resourcev1beta1.DeviceClass{deviceClass},
			slices:        []*resourcev1beta1.ResourceSlice{workerNodeSlice},
			wantPreFilter: &StatusError{UnschedulableAndUnresolvable, `request req-1: adminAccess needs the DRAAdminAccess feature, which is off by default in Kubernetes 1.32`},
		},
		// "structured-ignore-allocated-admin-access": an allocation with
		// admin access does not make the device busy.
		"structured-ignore-allocated-admin-access": {
			pod:     podWithClaimName,
			claims:  []*resourcev1beta1.ResourceClaim{pendingClaim, adminAccess(otherAllocatedClaim)},
			classes: []*resourcev1beta1.DeviceClass{deviceClass},
			slices:  []*resourcev1beta1.ResourceSlice{workerNodeSlice},
			wantWrites: []wantWrite{{
				claim:        withStatus(allocatedClaim, inUseStatus),
				addFinalizer: true, allocate: true,
				devices: []string{"some-driver/worker/instance-1"},
			}},
		},
		// "claim-parameters-CEL-runtime-error"
		"claim-parameters-CEL-runtime-error": {
			pod:        podWithClaimName,
			claims:     []*resourcev1beta1.ResourceClaim{withSelector(pendingClaim, brokenSelector)},
			classes:    []*resourcev1beta1.DeviceClass{deviceClass},
			slices:     []*resourcev1beta1.ResourceSlice{workerNodeSlice},
			wantFilter: map[string]*StatusError{nodeName: {Error, `claim default/my-pod-my-resource: selector #0: CEL runtime error: no such key: healthy`}},
		},
		// "class-parameters-CEL-runtime-error"
		"class-parameters-CEL-runtime-error": {
			pod:        podWithClaimName,
			claims:     []*resourcev1beta1.ResourceClaim{pendingClaim},
			classes:    []*resourcev1beta1.DeviceClass{classWithSelector(deviceClass, brokenSelector)},
			slices:     []*resourcev1beta1.ResourceSlice{workerNodeSlice},
			wantFilter: map[string]*StatusError{nodeName: {Error, `class my-resource-class: selector #0: CEL runtime error: no such key: healthy`}},
		},
		// "CEL-runtime-error-for-one-of-two-nodes": the error on one node
		// is an Error, which stops the pod even though worker-2 would fit
		// (the harness stops at the first Error, as kube does).
		"CEL-runtime-error-for-one-of-two-nodes": {
			nodes:      []*v1.Node{workerNode, workerNode2},
			pod:        podWithClaimName,
			claims:     []*resourcev1beta1.ResourceClaim{withSelector(pendingClaim, brokenSelector)},
			classes:    []*resourcev1beta1.DeviceClass{deviceClass},
			slices:     []*resourcev1beta1.ResourceSlice{workerNodeSlice, workerNode2Slice},
			wantFilter: map[string]*StatusError{nodeName: {Error, `claim default/my-pod-my-resource: selector #0: CEL runtime error: no such key: healthy`}},
		},
		// Not in kube's table (its CEL cases fail at run time): a selector
		// that does not compile is reported with the compiler's text.
		"CEL-compile-error": {
			pod:     podWithClaimName,
			claims:  []*resourcev1beta1.ResourceClaim{withSelector(pendingClaim, celSelector(`device.attributes[`))},
			classes: []*resourcev1beta1.DeviceClass{deviceClass},
			slices:  []*resourcev1beta1.ResourceSlice{workerNodeSlice},
			// The parser's wording belongs to cel-go; the start is ours.
			wantFilter: map[string]*StatusError{nodeName: {Error, `claim default/my-pod-my-resource: selector #0: CEL compile error: compilation failed: ERROR: <input>:1:19: Syntax error: *`}},
		},
		// "missing-class"
		"missing-class": {
			pod:           podWithClaimName,
			claims:        []*resourcev1beta1.ResourceClaim{pendingClaim},
			wantPreFilter: &StatusError{UnschedulableAndUnresolvable, `request req-1: device class my-resource-class does not exist`},
		},
		// "wrong-topology": the allocation is for nodes this one is not.
		"wrong-topology": {
			pod:        podWithClaimName,
			claims:     []*resourcev1beta1.ResourceClaim{allocatedClaimWithWrongTopology},
			wantFilter: map[string]*StatusError{nodeName: {UnschedulableAndUnresolvable, `resourceclaim not available on the node`}},
		},
		// "good-topology"
		"good-topology": {
			pod:        podWithClaimName,
			claims:     []*resourcev1beta1.ResourceClaim{allocatedClaimWithGoodTopology},
			wantWrites: []wantWrite{{claim: reservedFor(allocatedClaimWithGoodTopology, podName, podUID), devices: []string{}}},
		},
		// "reserved-okay": already reserved for the pod, nothing to write.
		"reserved-okay": {
			pod:    podWithClaimName,
			claims: []*resourcev1beta1.ResourceClaim{inUseClaim},
		},
		// Not in kube's table: allocation wins over topology in the
		// message when both fail, because kube checks it first.
		"wrong-topology-and-no-devices": {
			pod:        makePod(podName, podUID, byName("a", allocatedClaimWithWrongTopology.Name), byName("b", "not-my-claim")),
			claims:     []*resourcev1beta1.ResourceClaim{allocatedClaimWithWrongTopology, otherClaim},
			classes:    []*resourcev1beta1.DeviceClass{deviceClass},
			wantFilter: map[string]*StatusError{nodeName: {UnschedulableAndUnresolvable, `cannot allocate all claims`}},
		},
		// Not in kube 1.32 (where requests had no such fields): features
		// 1.32 lacks are refused, not ignored.
		"first-available-refused": {
			pod: podWithClaimName,
			claims: func() []*resourcev1beta1.ResourceClaim {
				c := pendingClaim.DeepCopy()
				r := &c.Spec.Devices.Requests[0]
				r.FirstAvailable = []resourcev1beta1.DeviceSubRequest{{Name: "sub", DeviceClassName: className}}
				r.DeviceClassName, r.AllocationMode, r.Count = "", "", 0
				return []*resourcev1beta1.ResourceClaim{c}
			}(),
			classes:       []*resourcev1beta1.DeviceClass{deviceClass},
			slices:        []*resourcev1beta1.ResourceSlice{workerNodeSlice},
			wantPreFilter: &StatusError{UnschedulableAndUnresolvable, `request req-1: firstAvailable (DRAPrioritizedList) is not supported by Kubernetes 1.32 DRA scheduling`},
		},
		"tolerations-refused": {
			pod: podWithClaimName,
			claims: func() []*resourcev1beta1.ResourceClaim {
				c := pendingClaim.DeepCopy()
				c.Spec.Devices.Requests[0].Tolerations = []resourcev1beta1.DeviceToleration{{Key: "k", Operator: resourcev1beta1.DeviceTolerationOpExists}}
				return []*resourcev1beta1.ResourceClaim{c}
			}(),
			classes:       []*resourcev1beta1.DeviceClass{deviceClass},
			slices:        []*resourcev1beta1.ResourceSlice{workerNodeSlice},
			wantPreFilter: &StatusError{UnschedulableAndUnresolvable, `request req-1: tolerations (DRADeviceTaints) are not supported by Kubernetes 1.32 DRA scheduling`},
		},
		// A request with neither a class nor a known alternative is the
		// "unsupported request type" kube reports as an error.
		"no-device-class-name": {
			pod: podWithClaimName,
			claims: func() []*resourcev1beta1.ResourceClaim {
				c := pendingClaim.DeepCopy()
				c.Spec.Devices.Requests[0].DeviceClassName = ""
				return []*resourcev1beta1.ResourceClaim{c}
			}(),
			wantPreFilter: &StatusError{Error, `request req-1: unsupported request type`},
		},
		// reservedFor already holds the maximum number of consumers.
		"reserved-for-full": {
			pod: podWithClaimName,
			claims: func() []*resourcev1beta1.ResourceClaim {
				c := allocatedClaim
				for i := range ReservedForMaxSize {
					c = reservedFor(c, fmt.Sprintf("pod-%d", i), fmt.Sprintf("uid-%d", i))
				}
				return []*resourcev1beta1.ResourceClaim{c}
			}(),
			wantPreFilter: &StatusError{UnschedulableAndUnresolvable, `resourceclaim default/my-pod-my-resource is already reserved for 256 consumers, the most status.reservedFor can hold`},
		},
		// One short of the maximum still fits.
		"reserved-for-one-left": {
			pod: podWithClaimName,
			claims: func() []*resourcev1beta1.ResourceClaim {
				c := allocatedClaim
				for i := range ReservedForMaxSize - 1 {
					c = reservedFor(c, fmt.Sprintf("pod-%d", i), fmt.Sprintf("uid-%d", i))
				}
				return []*resourcev1beta1.ResourceClaim{c}
			}(),
			wantWrites: []wantWrite{{claim: func() *resourcev1beta1.ResourceClaim {
				c := allocatedClaim
				for i := range ReservedForMaxSize - 1 {
					c = reservedFor(c, fmt.Sprintf("pod-%d", i), fmt.Sprintf("uid-%d", i))
				}
				return reservedFor(c, podName, podUID)
			}(), devices: []string{"some-driver/worker/instance-1"}}},
		},
	}

	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			runPluginCase(t, tc)
		})
	}
}

func withStatus(c *resourcev1beta1.ResourceClaim, s resourcev1beta1.ResourceClaimStatus) *resourcev1beta1.ResourceClaim {
	c = c.DeepCopy()
	s.DeepCopyInto(&c.Status)
	return c
}

func runPluginCase(t *testing.T, tc pluginCase) {
	t.Helper()
	sess := NewSession(NewSnapshot(tc.claims, tc.slices, tc.classes))
	pc, err := sess.PreFilter(tc.pod)
	if !sameStatus(err, tc.wantPreFilter) {
		t.Fatalf("PreFilter: got %v, want %v", describe(err), describe(tc.wantPreFilter))
	}
	if err != nil {
		return
	}
	if tc.wantSkip != (pc == nil) {
		t.Fatalf("PreFilter: skip = %v, want %v", pc == nil, tc.wantSkip)
	}
	if pc == nil {
		return
	}

	nodes := tc.nodes
	if nodes == nil {
		nodes = []*v1.Node{workerNode}
	}
	var chosen *Allocation
	for _, node := range nodes {
		alloc, err := sess.Filter(context.Background(), pc, node)
		want := tc.wantFilter[node.Name]
		if !sameStatus(err, want) {
			t.Fatalf("Filter %s: got %v, want %v", node.Name, describe(err), describe(want))
		}
		if CodeOf(err) == Error {
			return // kube aborts the pod's attempt here
		}
		if err == nil && chosen == nil {
			chosen = alloc
		}
	}
	if chosen == nil {
		return
	}
	if err := sess.Reserve(tc.pod, pc, chosen.NodeName, chosen); err != nil {
		t.Fatalf("Reserve: %v", err)
	}

	current := map[string]*resourcev1beta1.ResourceClaim{}
	for _, c := range tc.claims {
		c = c.DeepCopy()
		if tc.atBind != nil {
			tc.atBind(c)
		}
		current[c.Namespace+"/"+c.Name] = c
	}
	writes, err := BindClaims(tc.pod, chosen, func(ns, name string) (*resourcev1beta1.ResourceClaim, error) {
		return current[ns+"/"+name], nil
	})
	if err != nil {
		t.Fatalf("BindClaims: %v", err)
	}
	if len(writes) != len(tc.wantWrites) {
		t.Fatalf("BindClaims: got %d writes, want %d", len(writes), len(tc.wantWrites))
	}
	for i, w := range tc.wantWrites {
		got := writes[i]
		if diff := cmp.Diff(w.claim, got.Claim, quantityEqual); diff != "" {
			t.Errorf("write %d: claim (-want +got):\n%s", i, diff)
		}
		if got.AddFinalizer != w.addFinalizer || got.Allocate != w.allocate {
			t.Errorf("write %d: AddFinalizer=%v Allocate=%v, want %v %v", i, got.AddFinalizer, got.Allocate, w.addFinalizer, w.allocate)
		}
		if diff := cmp.Diff(w.devices, got.Devices); diff != "" {
			t.Errorf("write %d: devices (-want +got):\n%s", i, diff)
		}
	}
}

// sameStatus compares err with want; a Reason ending in "*" only has to
// be a prefix.
func sameStatus(err error, want *StatusError) bool {
	if want == nil {
		return err == nil
	}
	se, ok := err.(*StatusError)
	if !ok || se.Code != want.Code {
		return false
	}
	if prefix, ok := strings.CutSuffix(want.Reason, "*"); ok {
		return strings.HasPrefix(se.Reason, prefix)
	}
	return se.Reason == want.Reason
}

func describe(err error) string {
	if err == nil {
		return "success"
	}
	if se, ok := err.(*StatusError); ok {
		if se == nil {
			return "success"
		}
		return fmt.Sprintf("%s %q", se.Code, se.Reason)
	}
	return fmt.Sprintf("%T %q", err, err)
}
