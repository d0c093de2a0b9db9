package dra

// The allocator in k8s.io/dynamic-resource-allocation v0.34 speaks
// resource.k8s.io/v1, while a Kubernetes 1.32 cluster serves v1beta1. The two
// versions carry the same information with three differences in shape:
//
//   - v1beta1 Device wraps its attributes, capacity and the rest in Basic;
//     v1 Device has them inline.
//   - v1beta1 DeviceRequest has the exact-request fields (class, selectors,
//     mode, count, admin access, tolerations, capacity) inline; v1 nests them
//     in Exactly.
//   - v1beta1 ResourceSliceSpec has NodeName string and AllNodes bool; v1 has
//     pointers.
//
// The functions below copy every field explicitly, so that a field added on
// one side shows up as a compile error or a failing round-trip test rather
// than being dropped. They are lossless except for one case v1 cannot
// express: a v1beta1 Device without Basic (a device type newer than the
// reader) comes back with an empty Basic. The snapshot drops such devices
// before conversion, as kube 1.32 never selected them.

import (
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// mapSlice converts a slice element by element, keeping nil and empty apart
// so that round trips compare equal.
func mapSlice[A, B any](in []A, f func(*A) B) []B {
	if in == nil {
		return nil
	}
	out := make([]B, len(in))
	for i := range in {
		out[i] = f(&in[i])
	}
	return out
}

// mapMap converts map keys and values, keeping nil and empty apart.
func mapMap[KA, KB comparable, VA, VB any](in map[KA]VA, fk func(KA) KB, fv func(VA) VB) map[KB]VB {
	if in == nil {
		return nil
	}
	out := make(map[KB]VB, len(in))
	for k, v := range in {
		out[fk(k)] = fv(v)
	}
	return out
}

func copyStrings(in []string) []string {
	if in == nil {
		return nil
	}
	return append(make([]string, 0, len(in)), in...)
}

func copyNodeSelector(in *corev1.NodeSelector) *corev1.NodeSelector {
	if in == nil {
		return nil
	}
	return in.DeepCopy()
}

func copyQuantity(in *resource.Quantity) *resource.Quantity {
	if in == nil {
		return nil
	}
	out := in.DeepCopy()
	return &out
}

func copyRaw(in runtime.RawExtension) runtime.RawExtension {
	var out runtime.RawExtension
	in.DeepCopyInto(&out)
	return out
}

// ---- ResourceSlice ----

func sliceToV1(in *resourcev1beta1.ResourceSlice) *resourcev1.ResourceSlice {
	out := &resourcev1.ResourceSlice{TypeMeta: in.TypeMeta}
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	s := &in.Spec
	out.Spec = resourcev1.ResourceSliceSpec{
		Driver:                 s.Driver,
		Pool:                   resourcev1.ResourcePool(s.Pool),
		NodeSelector:           copyNodeSelector(s.NodeSelector),
		Devices:                mapSlice(s.Devices, deviceToV1),
		PerDeviceNodeSelection: copyBool(s.PerDeviceNodeSelection),
		SharedCounters:         mapSlice(s.SharedCounters, counterSetToV1),
	}
	// v1beta1 uses zero values for "unset"; v1 uses nil.
	if s.NodeName != "" {
		out.Spec.NodeName = ptr.To(s.NodeName)
	}
	if s.AllNodes {
		out.Spec.AllNodes = ptr.To(true)
	}
	return out
}

func sliceFromV1(in *resourcev1.ResourceSlice) *resourcev1beta1.ResourceSlice {
	out := &resourcev1beta1.ResourceSlice{TypeMeta: in.TypeMeta}
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	s := &in.Spec
	out.Spec = resourcev1beta1.ResourceSliceSpec{
		Driver:                 s.Driver,
		Pool:                   resourcev1beta1.ResourcePool(s.Pool),
		NodeName:               ptr.Deref(s.NodeName, ""),
		NodeSelector:           copyNodeSelector(s.NodeSelector),
		AllNodes:               ptr.Deref(s.AllNodes, false),
		Devices:                mapSlice(s.Devices, deviceFromV1),
		PerDeviceNodeSelection: copyBool(s.PerDeviceNodeSelection),
		SharedCounters:         mapSlice(s.SharedCounters, counterSetFromV1),
	}
	return out
}

// copyBool and copyString copy optional fields so that converted objects
// share no memory with their input.
func copyBool(in *bool) *bool {
	if in == nil {
		return nil
	}
	return ptr.To(*in)
}

func copyString(in *string) *string {
	if in == nil {
		return nil
	}
	return ptr.To(*in)
}

func counterSetToV1(in *resourcev1beta1.CounterSet) resourcev1.CounterSet {
	return resourcev1.CounterSet{Name: in.Name, Counters: countersToV1(in.Counters)}
}

func counterSetFromV1(in *resourcev1.CounterSet) resourcev1beta1.CounterSet {
	return resourcev1beta1.CounterSet{Name: in.Name, Counters: countersFromV1(in.Counters)}
}

func countersToV1(in map[string]resourcev1beta1.Counter) map[string]resourcev1.Counter {
	return mapMap(in, same[string], func(c resourcev1beta1.Counter) resourcev1.Counter {
		return resourcev1.Counter{Value: c.Value.DeepCopy()}
	})
}

func countersFromV1(in map[string]resourcev1.Counter) map[string]resourcev1beta1.Counter {
	return mapMap(in, same[string], func(c resourcev1.Counter) resourcev1beta1.Counter {
		return resourcev1beta1.Counter{Value: c.Value.DeepCopy()}
	})
}

func same[T any](v T) T { return v }

func deviceToV1(in *resourcev1beta1.Device) resourcev1.Device {
	out := resourcev1.Device{Name: in.Name}
	b := in.Basic
	if b == nil {
		return out
	}
	out.Attributes = mapMap(b.Attributes, qnToV1, attributeToV1)
	out.Capacity = mapMap(b.Capacity, qnToV1, capacityToV1)
	out.ConsumesCounters = mapSlice(b.ConsumesCounters, func(c *resourcev1beta1.DeviceCounterConsumption) resourcev1.DeviceCounterConsumption {
		return resourcev1.DeviceCounterConsumption{CounterSet: c.CounterSet, Counters: countersToV1(c.Counters)}
	})
	out.NodeName = copyString(b.NodeName)
	out.NodeSelector = copyNodeSelector(b.NodeSelector)
	out.AllNodes = copyBool(b.AllNodes)
	out.Taints = mapSlice(b.Taints, taintToV1)
	out.BindsToNode = copyBool(b.BindsToNode)
	out.BindingConditions = copyStrings(b.BindingConditions)
	out.BindingFailureConditions = copyStrings(b.BindingFailureConditions)
	out.AllowMultipleAllocations = copyBool(b.AllowMultipleAllocations)
	return out
}

func deviceFromV1(in *resourcev1.Device) resourcev1beta1.Device {
	return resourcev1beta1.Device{
		Name: in.Name,
		Basic: &resourcev1beta1.BasicDevice{
			Attributes: mapMap(in.Attributes, qnFromV1, attributeFromV1),
			Capacity:   mapMap(in.Capacity, qnFromV1, capacityFromV1),
			ConsumesCounters: mapSlice(in.ConsumesCounters, func(c *resourcev1.DeviceCounterConsumption) resourcev1beta1.DeviceCounterConsumption {
				return resourcev1beta1.DeviceCounterConsumption{CounterSet: c.CounterSet, Counters: countersFromV1(c.Counters)}
			}),
			NodeName:                 copyString(in.NodeName),
			NodeSelector:             copyNodeSelector(in.NodeSelector),
			AllNodes:                 copyBool(in.AllNodes),
			Taints:                   mapSlice(in.Taints, taintFromV1),
			BindsToNode:              copyBool(in.BindsToNode),
			BindingConditions:        copyStrings(in.BindingConditions),
			BindingFailureConditions: copyStrings(in.BindingFailureConditions),
			AllowMultipleAllocations: copyBool(in.AllowMultipleAllocations),
		},
	}
}

func qnToV1(q resourcev1beta1.QualifiedName) resourcev1.QualifiedName {
	return resourcev1.QualifiedName(q)
}

func qnFromV1(q resourcev1.QualifiedName) resourcev1beta1.QualifiedName {
	return resourcev1beta1.QualifiedName(q)
}

func attributeToV1(a resourcev1beta1.DeviceAttribute) resourcev1.DeviceAttribute {
	return resourcev1.DeviceAttribute(*a.DeepCopy())
}

func attributeFromV1(a resourcev1.DeviceAttribute) resourcev1beta1.DeviceAttribute {
	return resourcev1beta1.DeviceAttribute(*a.DeepCopy())
}

func capacityToV1(c resourcev1beta1.DeviceCapacity) resourcev1.DeviceCapacity {
	out := resourcev1.DeviceCapacity{Value: c.Value.DeepCopy()}
	if p := c.RequestPolicy; p != nil {
		out.RequestPolicy = &resourcev1.CapacityRequestPolicy{
			Default:     copyQuantity(p.Default),
			ValidValues: mapSlice(p.ValidValues, func(q *resource.Quantity) resource.Quantity { return q.DeepCopy() }),
		}
		if r := p.ValidRange; r != nil {
			out.RequestPolicy.ValidRange = &resourcev1.CapacityRequestPolicyRange{Min: copyQuantity(r.Min), Max: copyQuantity(r.Max), Step: copyQuantity(r.Step)}
		}
	}
	return out
}

func capacityFromV1(c resourcev1.DeviceCapacity) resourcev1beta1.DeviceCapacity {
	out := resourcev1beta1.DeviceCapacity{Value: c.Value.DeepCopy()}
	if p := c.RequestPolicy; p != nil {
		out.RequestPolicy = &resourcev1beta1.CapacityRequestPolicy{
			Default:     copyQuantity(p.Default),
			ValidValues: mapSlice(p.ValidValues, func(q *resource.Quantity) resource.Quantity { return q.DeepCopy() }),
		}
		if r := p.ValidRange; r != nil {
			out.RequestPolicy.ValidRange = &resourcev1beta1.CapacityRequestPolicyRange{Min: copyQuantity(r.Min), Max: copyQuantity(r.Max), Step: copyQuantity(r.Step)}
		}
	}
	return out
}

func taintToV1(t *resourcev1beta1.DeviceTaint) resourcev1.DeviceTaint {
	out := resourcev1.DeviceTaint{Key: t.Key, Value: t.Value, Effect: resourcev1.DeviceTaintEffect(t.Effect)}
	if t.TimeAdded != nil {
		out.TimeAdded = t.TimeAdded.DeepCopy()
	}
	return out
}

func taintFromV1(t *resourcev1.DeviceTaint) resourcev1beta1.DeviceTaint {
	out := resourcev1beta1.DeviceTaint{Key: t.Key, Value: t.Value, Effect: resourcev1beta1.DeviceTaintEffect(t.Effect)}
	if t.TimeAdded != nil {
		out.TimeAdded = t.TimeAdded.DeepCopy()
	}
	return out
}

// ---- DeviceClass ----

func classToV1(in *resourcev1beta1.DeviceClass) *resourcev1.DeviceClass {
	out := &resourcev1.DeviceClass{TypeMeta: in.TypeMeta}
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec = resourcev1.DeviceClassSpec{
		Selectors: mapSlice(in.Spec.Selectors, selectorToV1),
		Config: mapSlice(in.Spec.Config, func(c *resourcev1beta1.DeviceClassConfiguration) resourcev1.DeviceClassConfiguration {
			return resourcev1.DeviceClassConfiguration{DeviceConfiguration: configToV1(&c.DeviceConfiguration)}
		}),
		ExtendedResourceName: copyString(in.Spec.ExtendedResourceName),
	}
	return out
}

func classFromV1(in *resourcev1.DeviceClass) *resourcev1beta1.DeviceClass {
	out := &resourcev1beta1.DeviceClass{TypeMeta: in.TypeMeta}
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec = resourcev1beta1.DeviceClassSpec{
		Selectors: mapSlice(in.Spec.Selectors, selectorFromV1),
		Config: mapSlice(in.Spec.Config, func(c *resourcev1.DeviceClassConfiguration) resourcev1beta1.DeviceClassConfiguration {
			return resourcev1beta1.DeviceClassConfiguration{DeviceConfiguration: configFromV1(&c.DeviceConfiguration)}
		}),
		ExtendedResourceName: copyString(in.Spec.ExtendedResourceName),
	}
	return out
}

func selectorToV1(in *resourcev1beta1.DeviceSelector) resourcev1.DeviceSelector {
	var out resourcev1.DeviceSelector
	if in.CEL != nil {
		out.CEL = &resourcev1.CELDeviceSelector{Expression: in.CEL.Expression}
	}
	return out
}

func selectorFromV1(in *resourcev1.DeviceSelector) resourcev1beta1.DeviceSelector {
	var out resourcev1beta1.DeviceSelector
	if in.CEL != nil {
		out.CEL = &resourcev1beta1.CELDeviceSelector{Expression: in.CEL.Expression}
	}
	return out
}

func configToV1(in *resourcev1beta1.DeviceConfiguration) resourcev1.DeviceConfiguration {
	var out resourcev1.DeviceConfiguration
	if in.Opaque != nil {
		out.Opaque = &resourcev1.OpaqueDeviceConfiguration{Driver: in.Opaque.Driver, Parameters: copyRaw(in.Opaque.Parameters)}
	}
	return out
}

func configFromV1(in *resourcev1.DeviceConfiguration) resourcev1beta1.DeviceConfiguration {
	var out resourcev1beta1.DeviceConfiguration
	if in.Opaque != nil {
		out.Opaque = &resourcev1beta1.OpaqueDeviceConfiguration{Driver: in.Opaque.Driver, Parameters: copyRaw(in.Opaque.Parameters)}
	}
	return out
}

// ---- ResourceClaim ----

func claimToV1(in *resourcev1beta1.ResourceClaim) *resourcev1.ResourceClaim {
	out := &resourcev1.ResourceClaim{TypeMeta: in.TypeMeta}
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	d := &in.Spec.Devices
	out.Spec.Devices = resourcev1.DeviceClaim{
		Requests: mapSlice(d.Requests, requestToV1),
		Constraints: mapSlice(d.Constraints, func(c *resourcev1beta1.DeviceConstraint) resourcev1.DeviceConstraint {
			return resourcev1.DeviceConstraint{
				Requests:          copyStrings(c.Requests),
				MatchAttribute:    fqnToV1(c.MatchAttribute),
				DistinctAttribute: fqnToV1(c.DistinctAttribute),
			}
		}),
		Config: mapSlice(d.Config, func(c *resourcev1beta1.DeviceClaimConfiguration) resourcev1.DeviceClaimConfiguration {
			return resourcev1.DeviceClaimConfiguration{Requests: copyStrings(c.Requests), DeviceConfiguration: configToV1(&c.DeviceConfiguration)}
		}),
	}
	out.Status = resourcev1.ResourceClaimStatus{
		Allocation: allocationToV1(in.Status.Allocation),
		ReservedFor: mapSlice(in.Status.ReservedFor, func(r *resourcev1beta1.ResourceClaimConsumerReference) resourcev1.ResourceClaimConsumerReference {
			return resourcev1.ResourceClaimConsumerReference(*r)
		}),
		Devices: mapSlice(in.Status.Devices, deviceStatusToV1),
	}
	return out
}

func claimFromV1(in *resourcev1.ResourceClaim) *resourcev1beta1.ResourceClaim {
	out := &resourcev1beta1.ResourceClaim{TypeMeta: in.TypeMeta}
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	d := &in.Spec.Devices
	out.Spec.Devices = resourcev1beta1.DeviceClaim{
		Requests: mapSlice(d.Requests, requestFromV1),
		Constraints: mapSlice(d.Constraints, func(c *resourcev1.DeviceConstraint) resourcev1beta1.DeviceConstraint {
			return resourcev1beta1.DeviceConstraint{
				Requests:          copyStrings(c.Requests),
				MatchAttribute:    fqnFromV1(c.MatchAttribute),
				DistinctAttribute: fqnFromV1(c.DistinctAttribute),
			}
		}),
		Config: mapSlice(d.Config, func(c *resourcev1.DeviceClaimConfiguration) resourcev1beta1.DeviceClaimConfiguration {
			return resourcev1beta1.DeviceClaimConfiguration{Requests: copyStrings(c.Requests), DeviceConfiguration: configFromV1(&c.DeviceConfiguration)}
		}),
	}
	out.Status = resourcev1beta1.ResourceClaimStatus{
		Allocation: allocationFromV1(in.Status.Allocation),
		ReservedFor: mapSlice(in.Status.ReservedFor, func(r *resourcev1.ResourceClaimConsumerReference) resourcev1beta1.ResourceClaimConsumerReference {
			return resourcev1beta1.ResourceClaimConsumerReference(*r)
		}),
		Devices: mapSlice(in.Status.Devices, deviceStatusFromV1),
	}
	return out
}

func fqnToV1(in *resourcev1beta1.FullyQualifiedName) *resourcev1.FullyQualifiedName {
	if in == nil {
		return nil
	}
	return ptr.To(resourcev1.FullyQualifiedName(*in))
}

func fqnFromV1(in *resourcev1.FullyQualifiedName) *resourcev1beta1.FullyQualifiedName {
	if in == nil {
		return nil
	}
	return ptr.To(resourcev1beta1.FullyQualifiedName(*in))
}

// hasExactFields reports whether any of the fields that v1 nests under
// Exactly is set on a v1beta1 request.
func hasExactFields(r *resourcev1beta1.DeviceRequest) bool {
	return r.DeviceClassName != "" || r.Selectors != nil || r.AllocationMode != "" || r.Count != 0 ||
		r.AdminAccess != nil || r.Tolerations != nil || r.Capacity != nil
}

func requestToV1(in *resourcev1beta1.DeviceRequest) resourcev1.DeviceRequest {
	out := resourcev1.DeviceRequest{
		Name: in.Name,
		FirstAvailable: mapSlice(in.FirstAvailable, func(s *resourcev1beta1.DeviceSubRequest) resourcev1.DeviceSubRequest {
			return resourcev1.DeviceSubRequest{
				Name:            s.Name,
				DeviceClassName: s.DeviceClassName,
				Selectors:       mapSlice(s.Selectors, selectorToV1),
				AllocationMode:  resourcev1.DeviceAllocationMode(s.AllocationMode),
				Count:           s.Count,
				Tolerations:     mapSlice(s.Tolerations, tolerationToV1),
				Capacity:        capacityRequirementsToV1(s.Capacity),
			}
		}),
	}
	if hasExactFields(in) {
		out.Exactly = &resourcev1.ExactDeviceRequest{
			DeviceClassName: in.DeviceClassName,
			Selectors:       mapSlice(in.Selectors, selectorToV1),
			AllocationMode:  resourcev1.DeviceAllocationMode(in.AllocationMode),
			Count:           in.Count,
			AdminAccess:     copyBool(in.AdminAccess),
			Tolerations:     mapSlice(in.Tolerations, tolerationToV1),
			Capacity:        capacityRequirementsToV1(in.Capacity),
		}
	}
	return out
}

func requestFromV1(in *resourcev1.DeviceRequest) resourcev1beta1.DeviceRequest {
	out := resourcev1beta1.DeviceRequest{
		Name: in.Name,
		FirstAvailable: mapSlice(in.FirstAvailable, func(s *resourcev1.DeviceSubRequest) resourcev1beta1.DeviceSubRequest {
			return resourcev1beta1.DeviceSubRequest{
				Name:            s.Name,
				DeviceClassName: s.DeviceClassName,
				Selectors:       mapSlice(s.Selectors, selectorFromV1),
				AllocationMode:  resourcev1beta1.DeviceAllocationMode(s.AllocationMode),
				Count:           s.Count,
				Tolerations:     mapSlice(s.Tolerations, tolerationFromV1),
				Capacity:        capacityRequirementsFromV1(s.Capacity),
			}
		}),
	}
	if e := in.Exactly; e != nil {
		out.DeviceClassName = e.DeviceClassName
		out.Selectors = mapSlice(e.Selectors, selectorFromV1)
		out.AllocationMode = resourcev1beta1.DeviceAllocationMode(e.AllocationMode)
		out.Count = e.Count
		out.AdminAccess = copyBool(e.AdminAccess)
		out.Tolerations = mapSlice(e.Tolerations, tolerationFromV1)
		out.Capacity = capacityRequirementsFromV1(e.Capacity)
	}
	return out
}

func tolerationToV1(t *resourcev1beta1.DeviceToleration) resourcev1.DeviceToleration {
	return resourcev1.DeviceToleration{
		Key:               t.Key,
		Operator:          resourcev1.DeviceTolerationOperator(t.Operator),
		Value:             t.Value,
		Effect:            resourcev1.DeviceTaintEffect(t.Effect),
		TolerationSeconds: copyInt64(t.TolerationSeconds),
	}
}

func tolerationFromV1(t *resourcev1.DeviceToleration) resourcev1beta1.DeviceToleration {
	return resourcev1beta1.DeviceToleration{
		Key:               t.Key,
		Operator:          resourcev1beta1.DeviceTolerationOperator(t.Operator),
		Value:             t.Value,
		Effect:            resourcev1beta1.DeviceTaintEffect(t.Effect),
		TolerationSeconds: copyInt64(t.TolerationSeconds),
	}
}

func copyInt64(in *int64) *int64 {
	if in == nil {
		return nil
	}
	return ptr.To(*in)
}

func capacityRequirementsToV1(in *resourcev1beta1.CapacityRequirements) *resourcev1.CapacityRequirements {
	if in == nil {
		return nil
	}
	return &resourcev1.CapacityRequirements{Requests: mapMap(in.Requests, qnToV1, func(q resource.Quantity) resource.Quantity { return q.DeepCopy() })}
}

func capacityRequirementsFromV1(in *resourcev1.CapacityRequirements) *resourcev1beta1.CapacityRequirements {
	if in == nil {
		return nil
	}
	return &resourcev1beta1.CapacityRequirements{Requests: mapMap(in.Requests, qnFromV1, func(q resource.Quantity) resource.Quantity { return q.DeepCopy() })}
}

func deviceStatusToV1(in *resourcev1beta1.AllocatedDeviceStatus) resourcev1.AllocatedDeviceStatus {
	out := resourcev1.AllocatedDeviceStatus{
		Driver:  in.Driver,
		Pool:    in.Pool,
		Device:  in.Device,
		ShareID: copyString(in.ShareID),
	}
	// Conditions, Data and NetworkData are identical types or plain data.
	tmp := in.DeepCopy()
	out.Conditions = tmp.Conditions
	out.Data = tmp.Data
	if tmp.NetworkData != nil {
		out.NetworkData = ptr.To(resourcev1.NetworkDeviceData(*tmp.NetworkData))
	}
	return out
}

func deviceStatusFromV1(in *resourcev1.AllocatedDeviceStatus) resourcev1beta1.AllocatedDeviceStatus {
	out := resourcev1beta1.AllocatedDeviceStatus{
		Driver:  in.Driver,
		Pool:    in.Pool,
		Device:  in.Device,
		ShareID: copyString(in.ShareID),
	}
	tmp := in.DeepCopy()
	out.Conditions = tmp.Conditions
	out.Data = tmp.Data
	if tmp.NetworkData != nil {
		out.NetworkData = ptr.To(resourcev1beta1.NetworkDeviceData(*tmp.NetworkData))
	}
	return out
}

// ---- AllocationResult ----

func allocationToV1(in *resourcev1beta1.AllocationResult) *resourcev1.AllocationResult {
	if in == nil {
		return nil
	}
	out := &resourcev1.AllocationResult{
		Devices: resourcev1.DeviceAllocationResult{
			Results: mapSlice(in.Devices.Results, func(r *resourcev1beta1.DeviceRequestAllocationResult) resourcev1.DeviceRequestAllocationResult {
				return resourcev1.DeviceRequestAllocationResult{
					Request:                  r.Request,
					Driver:                   r.Driver,
					Pool:                     r.Pool,
					Device:                   r.Device,
					AdminAccess:              copyBool(r.AdminAccess),
					Tolerations:              mapSlice(r.Tolerations, tolerationToV1),
					BindingConditions:        copyStrings(r.BindingConditions),
					BindingFailureConditions: copyStrings(r.BindingFailureConditions),
					ShareID:                  r.DeepCopy().ShareID,
					ConsumedCapacity:         mapMap(r.ConsumedCapacity, qnToV1, func(q resource.Quantity) resource.Quantity { return q.DeepCopy() }),
				}
			}),
			Config: mapSlice(in.Devices.Config, func(c *resourcev1beta1.DeviceAllocationConfiguration) resourcev1.DeviceAllocationConfiguration {
				return resourcev1.DeviceAllocationConfiguration{
					Source:              resourcev1.AllocationConfigSource(c.Source),
					Requests:            copyStrings(c.Requests),
					DeviceConfiguration: configToV1(&c.DeviceConfiguration),
				}
			}),
		},
		NodeSelector: copyNodeSelector(in.NodeSelector),
	}
	if in.AllocationTimestamp != nil {
		out.AllocationTimestamp = in.AllocationTimestamp.DeepCopy()
	}
	return out
}

func allocationFromV1(in *resourcev1.AllocationResult) *resourcev1beta1.AllocationResult {
	if in == nil {
		return nil
	}
	out := &resourcev1beta1.AllocationResult{
		Devices: resourcev1beta1.DeviceAllocationResult{
			Results: mapSlice(in.Devices.Results, func(r *resourcev1.DeviceRequestAllocationResult) resourcev1beta1.DeviceRequestAllocationResult {
				return resourcev1beta1.DeviceRequestAllocationResult{
					Request:                  r.Request,
					Driver:                   r.Driver,
					Pool:                     r.Pool,
					Device:                   r.Device,
					AdminAccess:              copyBool(r.AdminAccess),
					Tolerations:              mapSlice(r.Tolerations, tolerationFromV1),
					BindingConditions:        copyStrings(r.BindingConditions),
					BindingFailureConditions: copyStrings(r.BindingFailureConditions),
					ShareID:                  r.DeepCopy().ShareID,
					ConsumedCapacity:         mapMap(r.ConsumedCapacity, qnFromV1, func(q resource.Quantity) resource.Quantity { return q.DeepCopy() }),
				}
			}),
			Config: mapSlice(in.Devices.Config, func(c *resourcev1.DeviceAllocationConfiguration) resourcev1beta1.DeviceAllocationConfiguration {
				return resourcev1beta1.DeviceAllocationConfiguration{
					Source:              resourcev1beta1.AllocationConfigSource(c.Source),
					Requests:            copyStrings(c.Requests),
					DeviceConfiguration: configFromV1(&c.DeviceConfiguration),
				}
			}),
		},
		NodeSelector: copyNodeSelector(in.NodeSelector),
	}
	if in.AllocationTimestamp != nil {
		out.AllocationTimestamp = in.AllocationTimestamp.DeepCopy()
	}
	return out
}
