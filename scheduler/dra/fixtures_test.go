package dra

// Test objects modelled on the fixtures of kube-scheduler v1.32.13's
// dynamicresources_test.go (same names and shapes, so that the translated
// cases can be compared with the originals), built with local helpers.

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

const (
	nodeName     = "worker"
	node2Name    = "worker-2"
	driver       = "some-driver"
	podName      = "my-pod"
	podUID       = "1234"
	resourceName = "my-resource"
	claimName    = podName + "-" + resourceName
	className    = "my-resource-class"
	namespace    = "default"
	attrName     = resourcev1beta1.QualifiedName("healthy")
)

func makeNode(name string) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}}}
}

func makePod(name, uid string, claims ...v1.PodResourceClaim) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, UID: types.UID(uid)},
		Spec:       v1.PodSpec{ResourceClaims: claims},
	}
}

func byName(resource, claim string) v1.PodResourceClaim {
	return v1.PodResourceClaim{Name: resource, ResourceClaimName: ptr.To(claim)}
}

func byTemplate(resource, template string) v1.PodResourceClaim {
	return v1.PodResourceClaim{Name: resource, ResourceClaimTemplateName: ptr.To(template)}
}

var (
	podWithClaimName     = makePod(podName, podUID, byName(resourceName, claimName))
	podWithClaimTemplate = makePod(podName, podUID, byTemplate(resourceName, claimName))
	// The claim controller has created the claim and recorded its name.
	podWithClaimTemplateInStatus = func() *v1.Pod {
		pod := podWithClaimTemplate.DeepCopy()
		pod.Status.ResourceClaimStatuses = []v1.PodResourceClaimStatus{{Name: resourceName, ResourceClaimName: ptr.To(claimName)}}
		return pod
	}()

	workerNode  = makeNode(nodeName)
	workerNode2 = makeNode(node2Name)

	deviceClass = &resourcev1beta1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: className}}

	// Node with "instance-1" and no attributes, and a second node whose
	// device has the "healthy" attribute.
	workerNodeSlice  = makeSlice(nodeName, driver, device("instance-1", nil))
	workerNode2Slice = makeSlice(node2Name, driver, device("instance-1", map[resourcev1beta1.QualifiedName]resourcev1beta1.DeviceAttribute{attrName: {BoolValue: ptr.To(true)}}))

	// A selector that fails at run time on a device without the attribute.
	brokenSelector = resourcev1beta1.DeviceSelector{CEL: &resourcev1beta1.CELDeviceSelector{
		Expression: fmt.Sprintf(`device.attributes["%s"].%s`, driver, attrName),
	}}

	claim        = makeClaim(claimName, className)
	pendingClaim = ownedBy(claim, podName, podUID)
	otherClaim   = makeClaim("not-my-claim", className)

	allocationResult = &resourcev1beta1.AllocationResult{
		Devices: resourcev1beta1.DeviceAllocationResult{
			Results: []resourcev1beta1.DeviceRequestAllocationResult{{Driver: driver, Pool: nodeName, Device: "instance-1", Request: "req-1"}},
		},
		NodeSelector: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
			MatchFields: []v1.NodeSelectorRequirement{{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{nodeName}}},
		}}},
	}
	allocatedClaim      = allocated(pendingClaim, allocationResult)
	inUseClaim          = reservedFor(allocatedClaim, podName, podUID)
	otherAllocatedClaim = allocated(otherClaim, allocationResult)

	allocatedClaimWithWrongTopology = allocated(pendingClaim, &resourcev1beta1.AllocationResult{NodeSelector: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
		MatchExpressions: []v1.NodeSelectorRequirement{{Key: "no-such-label", Operator: v1.NodeSelectorOpIn, Values: []string{"no-such-value"}}},
	}}}})
	allocatedClaimWithGoodTopology = allocated(pendingClaim, &resourcev1beta1.AllocationResult{NodeSelector: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
		MatchExpressions: []v1.NodeSelectorRequirement{{Key: "kubernetes.io/hostname", Operator: v1.NodeSelectorOpIn, Values: []string{nodeName}}},
	}}}})
)

func device(name string, attrs map[resourcev1beta1.QualifiedName]resourcev1beta1.DeviceAttribute) resourcev1beta1.Device {
	return resourcev1beta1.Device{Name: name, Basic: &resourcev1beta1.BasicDevice{Attributes: attrs}}
}

// makeSlice publishes devices in a node-local pool named after the node.
func makeSlice(node, driverName string, devices ...resourcev1beta1.Device) *resourcev1beta1.ResourceSlice {
	return &resourcev1beta1.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: node + "-" + driverName},
		Spec: resourcev1beta1.ResourceSliceSpec{
			Driver:   driverName,
			NodeName: node,
			Pool:     resourcev1beta1.ResourcePool{Name: node, ResourceSliceCount: 1},
			Devices:  devices,
		},
	}
}

// makeClaim asks for one device of class, as request "req-1".
func makeClaim(name, class string) *resourcev1beta1.ResourceClaim {
	return &resourcev1beta1.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, UID: types.UID(name + "-uid")},
		Spec: resourcev1beta1.ResourceClaimSpec{Devices: resourcev1beta1.DeviceClaim{Requests: []resourcev1beta1.DeviceRequest{{
			Name: "req-1", DeviceClassName: class, AllocationMode: resourcev1beta1.DeviceAllocationModeExactCount, Count: 1,
		}}}},
	}
}

func ownedBy(c *resourcev1beta1.ResourceClaim, pod, uid string) *resourcev1beta1.ResourceClaim {
	c = c.DeepCopy()
	c.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: pod, UID: types.UID(uid), Controller: ptr.To(true)}}
	return c
}

// allocated sets the allocation and the finalizer, as an allocator would.
func allocated(c *resourcev1beta1.ResourceClaim, a *resourcev1beta1.AllocationResult) *resourcev1beta1.ResourceClaim {
	c = c.DeepCopy()
	c.Finalizers = []string{resourcev1beta1.Finalizer}
	c.Status.Allocation = a.DeepCopy()
	return c
}

func reservedFor(c *resourcev1beta1.ResourceClaim, pod, uid string) *resourcev1beta1.ResourceClaim {
	c = c.DeepCopy()
	c.Status.ReservedFor = append(c.Status.ReservedFor, resourcev1beta1.ResourceClaimConsumerReference{Resource: "pods", Name: pod, UID: types.UID(uid)})
	return c
}

func adminAccess(c *resourcev1beta1.ResourceClaim) *resourcev1beta1.ResourceClaim {
	c = c.DeepCopy()
	for i := range c.Spec.Devices.Requests {
		c.Spec.Devices.Requests[i].AdminAccess = ptr.To(true)
	}
	if c.Status.Allocation != nil {
		for i := range c.Status.Allocation.Devices.Results {
			c.Status.Allocation.Devices.Results[i].AdminAccess = ptr.To(true)
		}
	}
	return c
}

func withSelector(c *resourcev1beta1.ResourceClaim, sel resourcev1beta1.DeviceSelector) *resourcev1beta1.ResourceClaim {
	c = c.DeepCopy()
	for i := range c.Spec.Devices.Requests {
		c.Spec.Devices.Requests[i].Selectors = []resourcev1beta1.DeviceSelector{sel}
	}
	return c
}

func classWithSelector(c *resourcev1beta1.DeviceClass, sel resourcev1beta1.DeviceSelector) *resourcev1beta1.DeviceClass {
	c = c.DeepCopy()
	c.Spec.Selectors = []resourcev1beta1.DeviceSelector{sel}
	return c
}

func celSelector(expr string) resourcev1beta1.DeviceSelector {
	return resourcev1beta1.DeviceSelector{CEL: &resourcev1beta1.CELDeviceSelector{Expression: expr}}
}
