package harness

import (
	"context"
	"fmt"

	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// The API server serves resource.k8s.io/v1beta1 (Kubernetes 1.32: the
// DynamicResourceAllocation feature gate and that API version turned on,
// see startAPIServer), so tests can publish devices as a DRA driver would
// and ask for them with ResourceClaims. No kubelet or driver runs: a claim
// is allocated and reserved by the scheduler and nothing prepares it.

// CreateDeviceClass creates a DeviceClass named tc.Name(name) whose CEL
// selector takes every device of driver, and returns that name.
func (tc *Test) CreateDeviceClass(name, driver string) string {
	tc.t.Helper()
	dc := &resourcev1beta1.DeviceClass{
		ObjectMeta: metav1.ObjectMeta{Name: tc.Name(name)},
		Spec: resourcev1beta1.DeviceClassSpec{Selectors: []resourcev1beta1.DeviceSelector{{
			CEL: &resourcev1beta1.CELDeviceSelector{Expression: fmt.Sprintf("device.driver == %q", driver)},
		}}},
	}
	tc.mu.Lock()
	tc.deviceClasses = append(tc.deviceClasses, dc.Name)
	tc.mu.Unlock()
	if _, err := tc.Kube.ResourceV1beta1().DeviceClasses().Create(tc.Ctx, dc, metav1.CreateOptions{}); err != nil {
		tc.t.Fatalf("creating DeviceClass %s: %v", dc.Name, err)
	}
	return dc.Name
}

// CreateResourceSlice publishes, as driver's kubelet plugin would on node,
// a ResourceSlice named tc.Name(name): the whole of pool (generation 1, one
// slice), with the devices named, each a basic device with an int
// attribute "index" (its position). It returns the slice.
func (tc *Test) CreateResourceSlice(name, driver, node, pool string, devices ...string) *resourcev1beta1.ResourceSlice {
	tc.t.Helper()
	rs := &resourcev1beta1.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: tc.Name(name)},
		Spec: resourcev1beta1.ResourceSliceSpec{
			Driver:   driver,
			Pool:     resourcev1beta1.ResourcePool{Name: pool, Generation: 1, ResourceSliceCount: 1},
			NodeName: node,
		},
	}
	for i, d := range devices {
		rs.Spec.Devices = append(rs.Spec.Devices, resourcev1beta1.Device{Name: d, Basic: &resourcev1beta1.BasicDevice{
			Attributes: map[resourcev1beta1.QualifiedName]resourcev1beta1.DeviceAttribute{"index": {IntValue: ptr.To(int64(i))}},
		}})
	}
	tc.mu.Lock()
	tc.resourceSlices = append(tc.resourceSlices, rs.Name)
	tc.mu.Unlock()
	rs, err := tc.Kube.ResourceV1beta1().ResourceSlices().Create(tc.Ctx, rs, metav1.CreateOptions{})
	if err != nil {
		tc.t.Fatalf("creating ResourceSlice %s: %v", tc.Name(name), err)
	}
	return rs
}

// CreateResourceClaim creates a ResourceClaim in the test's namespace with
// one request, named "device", for exactly one device of class.
func (tc *Test) CreateResourceClaim(name, class string) *resourcev1beta1.ResourceClaim {
	tc.t.Helper()
	rc := &resourcev1beta1.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: tc.Namespace},
		Spec: resourcev1beta1.ResourceClaimSpec{Devices: resourcev1beta1.DeviceClaim{Requests: []resourcev1beta1.DeviceRequest{{
			Name:            "device",
			DeviceClassName: class,
			AllocationMode:  resourcev1beta1.DeviceAllocationModeExactCount,
			Count:           1,
		}}}},
	}
	rc, err := tc.Kube.ResourceV1beta1().ResourceClaims(tc.Namespace).Create(tc.Ctx, rc, metav1.CreateOptions{})
	if err != nil {
		tc.t.Fatalf("creating ResourceClaim %s: %v", name, err)
	}
	return rc
}

// ResourceClaim reads a ResourceClaim of the test's namespace.
func (tc *Test) ResourceClaim(name string) (*resourcev1beta1.ResourceClaim, error) {
	return tc.Kube.ResourceV1beta1().ResourceClaims(tc.Namespace).Get(tc.Ctx, name, metav1.GetOptions{})
}

// deleteDevices deletes the test's ResourceClaims, ResourceSlices and
// DeviceClasses. The scheduler gives a claim it allocates the finalizer
// resource.kubernetes.io/delete-protection, which only
// kube-controller-manager's resource claim controller removes, and it does
// not run: the finalizers are emptied first, so that the deletes finish at
// once.
func (tc *Test) deleteDevices() {
	t, ctx := tc.t, tc.Ctx
	tc.mu.Lock()
	slices := append([]string(nil), tc.resourceSlices...)
	classes := append([]string(nil), tc.deviceClasses...)
	tc.mu.Unlock()
	claims := tc.Kube.ResourceV1beta1().ResourceClaims(tc.Namespace)
	list, err := claims.List(ctx, metav1.ListOptions{})
	switch {
	case apierrors.IsNotFound(err):
		// An API server that does not serve resource.k8s.io/v1beta1
		// (CALDERA_E2E_BIN naming another build, say): no claims.
	case err != nil:
		t.Errorf("cleanup: listing ResourceClaims: %v", err)
	default:
		err := Parallel(len(list.Items), cleanupWorkers, func(i int) error {
			name := list.Items[i].Name
			return deleteUnprotected(ctx, name, "ResourceClaim",
				func(ctx context.Context) error {
					_, err := claims.Patch(ctx, name, types.MergePatchType, noFinalizers, metav1.PatchOptions{})
					return err
				},
				func(ctx context.Context) error { return claims.Delete(ctx, name, metav1.DeleteOptions{}) })
		})
		if err != nil {
			t.Errorf("cleanup: %v", err)
		}
	}
	for _, name := range slices {
		if err := ignoreNotFound(tc.Kube.ResourceV1beta1().ResourceSlices().Delete(ctx, name, metav1.DeleteOptions{})); err != nil {
			t.Errorf("cleanup: deleting ResourceSlice %s: %v", name, err)
		}
	}
	for _, name := range classes {
		if err := ignoreNotFound(tc.Kube.ResourceV1beta1().DeviceClasses().Delete(ctx, name, metav1.DeleteOptions{})); err != nil {
			t.Errorf("cleanup: deleting DeviceClass %s: %v", name, err)
		}
	}
}
