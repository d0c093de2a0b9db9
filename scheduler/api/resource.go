package api

import (
	"fmt"
	"math"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// minResource is the tolerance under which two quantities count as equal and a
// quantity counts as zero, as in Volcano: float arithmetic on milli-CPU and
// bytes must not make an exact fit look like an overflow.
const minResource float64 = 0.1

// DimensionDefault says what a resource dimension that one side lacks is worth
// in a comparison.
type DimensionDefault int

const (
	// Zero treats a missing scalar dimension as 0.
	Zero DimensionDefault = 0
	// Infinity treats a missing scalar dimension on the right-hand side as
	// unbounded.
	Infinity DimensionDefault = -1
)

// GPUResourceName is the extended resource most policies care about.
const GPUResourceName v1.ResourceName = "nvidia.com/gpu"

// Resource is an amount of every schedulable dimension: milli-CPU, memory bytes
// and scalar resources (extended resources, hugepages, ephemeral storage in
// milli-units, and "pods" as a count). MaxTaskNum mirrors the "pods" dimension of
// a node's allocatable.
type Resource struct {
	MilliCPU   float64
	Memory     float64
	Scalars    map[v1.ResourceName]float64
	MaxTaskNum int
}

// EmptyResource returns a zero Resource.
func EmptyResource() *Resource { return &Resource{} }

// NewResource converts a ResourceList the way Volcano does: CPU in milli-units,
// memory in bytes, pods as a count, other scalar resources in milli-units.
func NewResource(rl v1.ResourceList) *Resource {
	r := EmptyResource()
	for name, q := range rl {
		switch name {
		case v1.ResourceCPU:
			r.MilliCPU += milliOf(q)
		case v1.ResourceMemory:
			r.Memory += valueOf(q)
		case v1.ResourcePods:
			r.MaxTaskNum += int(min(valueOf(q), math.MaxInt32))
			r.AddScalar(name, valueOf(q))
		case v1.ResourceEphemeralStorage:
			r.AddScalar(name, milliOf(q))
		default:
			if isScalarResourceName(name) {
				r.AddScalar(name, milliOf(q))
			}
		}
	}
	return r
}

// Quantity.Value and MilliValue wrap past 2^63: a pod asking cpu: 1e16
// (1e19 milli-CPU) would ask a negative amount and fit on any node, and a
// node with memory: 1e30 would offer none. Quantities within int64 are
// converted as Volcano converts them; larger ones by their float value,
// which is never wrapped (a request that large fits no node, whose
// allocatable is what a kubelet can report).
var (
	maxExactValue = resource.NewQuantity(math.MaxInt64, resource.DecimalSI)
	minExactValue = resource.NewQuantity(math.MinInt64, resource.DecimalSI)
	maxExactMilli = resource.NewMilliQuantity(math.MaxInt64, resource.DecimalSI)
	minExactMilli = resource.NewMilliQuantity(math.MinInt64, resource.DecimalSI)
)

func valueOf(q resource.Quantity) float64 {
	if q.Cmp(*maxExactValue) <= 0 && q.Cmp(*minExactValue) >= 0 {
		return float64(q.Value())
	}
	return q.AsApproximateFloat64()
}

func milliOf(q resource.Quantity) float64 {
	if q.Cmp(*maxExactMilli) <= 0 && q.Cmp(*minExactMilli) >= 0 {
		return float64(q.MilliValue())
	}
	return q.AsApproximateFloat64() * 1000
}

// CheckQuantity says whether q, the amount of resource name, is one the
// scheduler's arithmetic holds exactly: milli-units of CPU, ephemeral
// storage and extended resources, and bytes of memory, within int64, as
// Volcano and kube-scheduler count them.
func CheckQuantity(name v1.ResourceName, q resource.Quantity) error {
	limit := maxExactMilli
	if name == v1.ResourceMemory || name == v1.ResourcePods {
		limit = maxExactValue
	}
	if q.Cmp(*limit) > 0 {
		return fmt.Errorf("%s: %s is more than the scheduler can count (at most %s)", name, q.String(), limit.String())
	}
	return nil
}

// Clone returns a deep copy.
func (r *Resource) Clone() *Resource {
	c := &Resource{MilliCPU: r.MilliCPU, Memory: r.Memory, MaxTaskNum: r.MaxTaskNum}
	if r.Scalars != nil {
		c.Scalars = make(map[v1.ResourceName]float64, len(r.Scalars))
		for k, v := range r.Scalars {
			c.Scalars[k] = v
		}
	}
	return c
}

// Get returns the quantity of one dimension.
func (r *Resource) Get(name v1.ResourceName) float64 {
	switch name {
	case v1.ResourceCPU:
		return r.MilliCPU
	case v1.ResourceMemory:
		return r.Memory
	default:
		return r.Scalars[name]
	}
}

// AddScalar adds to one scalar dimension.
func (r *Resource) AddScalar(name v1.ResourceName, q float64) {
	r.SetScalar(name, r.Scalars[name]+q)
}

// SetScalar sets one scalar dimension.
func (r *Resource) SetScalar(name v1.ResourceName, q float64) {
	if r.Scalars == nil {
		r.Scalars = map[v1.ResourceName]float64{}
	}
	r.Scalars[name] = q
}

// ResourceNames lists the dimensions that are not below the tolerance.
func (r *Resource) ResourceNames() []v1.ResourceName {
	var names []v1.ResourceName
	if r.MilliCPU >= minResource {
		names = append(names, v1.ResourceCPU)
	}
	if r.Memory >= minResource {
		names = append(names, v1.ResourceMemory)
	}
	for n, q := range r.Scalars {
		if q >= minResource {
			names = append(names, n)
		}
	}
	return names
}

// isIgnoredScalar reports the dimensions that do not make a request non-empty:
// every pod asks for one "pods" slot, but that alone is not a resource demand.
func isIgnoredScalar(name v1.ResourceName) bool { return name == v1.ResourcePods }

// IsEmpty reports whether every dimension but "pods" is below the tolerance.
func (r *Resource) IsEmpty() bool {
	if r.MilliCPU >= minResource || r.Memory >= minResource {
		return false
	}
	for n, q := range r.Scalars {
		if !isIgnoredScalar(n) && q >= minResource {
			return false
		}
	}
	return true
}

// IsZero reports whether one dimension is below the tolerance.
func (r *Resource) IsZero(name v1.ResourceName) bool { return r.Get(name) < minResource }

// Add adds rr to r and returns r.
func (r *Resource) Add(rr *Resource) *Resource {
	r.MilliCPU += rr.MilliCPU
	r.Memory += rr.Memory
	for n, q := range rr.Scalars {
		if r.Scalars == nil {
			r.Scalars = map[v1.ResourceName]float64{}
		}
		r.Scalars[n] += q
	}
	return r
}

// Sub subtracts rr from r and returns r. Callers check sufficiency first; an
// insufficient r goes negative rather than panicking, so a cache that is briefly
// out of step with the API server cannot crash the scheduler.
func (r *Resource) Sub(rr *Resource) *Resource {
	r.MilliCPU -= rr.MilliCPU
	r.Memory -= rr.Memory
	if r.Scalars == nil {
		return r
	}
	for n, q := range rr.Scalars {
		r.Scalars[n] -= q
	}
	return r
}

// clampAtZero raises every negative dimension to zero and returns r.
func (r *Resource) clampAtZero() *Resource {
	r.MilliCPU = max(r.MilliCPU, 0)
	r.Memory = max(r.Memory, 0)
	for n, q := range r.Scalars {
		r.Scalars[n] = max(q, 0)
	}
	return r
}

// Multi scales every dimension by ratio and returns r.
func (r *Resource) Multi(ratio float64) *Resource {
	r.MilliCPU *= ratio
	r.Memory *= ratio
	for n, q := range r.Scalars {
		r.Scalars[n] = q * ratio
	}
	return r
}

// SetMaxResource raises each dimension of r to rr's where rr's is larger.
func (r *Resource) SetMaxResource(rr *Resource) {
	if r == nil || rr == nil {
		return
	}
	r.MilliCPU = math.Max(r.MilliCPU, rr.MilliCPU)
	r.Memory = math.Max(r.Memory, rr.Memory)
	for n, q := range rr.Scalars {
		if cur, ok := r.Scalars[n]; !ok || q > cur {
			r.SetScalar(n, q)
		}
	}
}

// MinDimensionResource lowers each dimension of r to rr's where rr's is
// smaller. With Infinity, a scalar dimension that rr lacks leaves r's as is;
// with Zero it becomes 0.
func (r *Resource) MinDimensionResource(rr *Resource, def DimensionDefault) *Resource {
	r.MilliCPU = math.Min(r.MilliCPU, rr.MilliCPU)
	r.Memory = math.Min(r.Memory, rr.Memory)
	for n, q := range r.Scalars {
		rq, ok := rr.Scalars[n]
		if !ok {
			if def == Zero {
				r.Scalars[n] = 0
			}
			continue
		}
		r.Scalars[n] = math.Min(q, rq)
	}
	return r
}

func lessEqualTol(l, r float64) bool { return l < r || math.Abs(l-r) < minResource }

// LessEqual reports whether every dimension of r is at most rr's, within the
// tolerance. def says what a scalar dimension that rr lacks is worth.
func (r *Resource) LessEqual(rr *Resource, def DimensionDefault) bool {
	if !lessEqualTol(r.MilliCPU, rr.MilliCPU) || !lessEqualTol(r.Memory, rr.Memory) {
		return false
	}
	if def == Infinity {
		// As in Volcano: a scalar the right side bounds but the left side
		// lacks makes the comparison fail.
		for n := range rr.Scalars {
			if _, ok := r.Scalars[n]; !ok {
				return false
			}
		}
	}
	for n, l := range r.Scalars {
		rv, ok := rr.Scalars[n]
		if !ok && def == Infinity {
			continue
		}
		if !lessEqualTol(l, rv) {
			return false
		}
	}
	return true
}

// InsufficientDimensions lists the dimensions in which r exceeds rr (treating a
// dimension rr lacks as zero), in a stable order for messages.
func (r *Resource) InsufficientDimensions(rr *Resource) []string {
	var out []string
	if !lessEqualTol(r.MilliCPU, rr.MilliCPU) {
		out = append(out, string(v1.ResourceCPU))
	}
	if !lessEqualTol(r.Memory, rr.Memory) {
		out = append(out, string(v1.ResourceMemory))
	}
	var scalars []string
	for n, l := range r.Scalars {
		if !lessEqualTol(l, rr.Scalars[n]) {
			scalars = append(scalars, string(n))
		}
	}
	sort.Strings(scalars)
	return append(out, scalars...)
}

// Less reports whether every dimension of r is strictly below rr's.
func (r *Resource) Less(rr *Resource, def DimensionDefault) bool {
	if !(r.MilliCPU < rr.MilliCPU) || !(r.Memory < rr.Memory) {
		return false
	}
	if def == Infinity {
		for n := range rr.Scalars {
			if _, ok := r.Scalars[n]; !ok {
				return false
			}
		}
	}
	for n, l := range r.Scalars {
		rv, ok := rr.Scalars[n]
		if !ok && def == Infinity {
			continue
		}
		if !(l < rv) {
			return false
		}
	}
	return true
}

// LessPartly reports whether some dimension of r is strictly below rr's.
func (r *Resource) LessPartly(rr *Resource, def DimensionDefault) bool {
	if r.MilliCPU < rr.MilliCPU || r.Memory < rr.Memory {
		return true
	}
	if def == Zero {
		for n := range rr.Scalars {
			if _, ok := r.Scalars[n]; !ok {
				return true
			}
		}
	}
	for n, l := range r.Scalars {
		rv, ok := rr.Scalars[n]
		if !ok && def == Infinity {
			return true
		}
		if l < rv {
			return true
		}
	}
	return false
}

// FitDelta subtracts rr plus the tolerance from r in each dimension rr asks
// for; a negative result means rr does not fit there.
func (r *Resource) FitDelta(rr *Resource) *Resource {
	if rr.MilliCPU > 0 {
		r.MilliCPU -= rr.MilliCPU + minResource
	}
	if rr.Memory > 0 {
		r.Memory -= rr.Memory + minResource
	}
	for n, q := range rr.Scalars {
		if q > 0 {
			r.SetScalar(n, r.Scalars[n]-(q+minResource))
		}
	}
	return r
}

// Equal reports whether both resources match in every dimension of r.
func (r *Resource) Equal(rr *Resource) bool {
	eq := func(a, b float64) bool { return a == b || math.Abs(a-b) < minResource }
	if !eq(r.MilliCPU, rr.MilliCPU) || !eq(r.Memory, rr.Memory) {
		return false
	}
	for n, l := range r.Scalars {
		if !eq(l, rr.Scalars[n]) {
			return false
		}
	}
	return true
}

// ExceededPart returns the part of left that exceeds right, per dimension.
func ExceededPart(left, right *Resource) *Resource {
	out := EmptyResource()
	out.MilliCPU = math.Max(0, left.MilliCPU-right.MilliCPU)
	out.Memory = math.Max(0, left.Memory-right.Memory)
	for n, q := range left.Scalars {
		if d := q - right.Scalars[n]; d > 0 {
			out.SetScalar(n, d)
		}
	}
	return out
}

// String prints the resource compactly for logs and messages.
func (r *Resource) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cpu %0.2f, memory %0.2f", r.MilliCPU, r.Memory)
	names := make([]string, 0, len(r.Scalars))
	for n := range r.Scalars {
		names = append(names, string(n))
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, ", %s %0.2f", n, r.Scalars[v1.ResourceName(n)])
	}
	return b.String()
}

// isScalarResourceName reports the dimensions a Resource tracks besides cpu,
// memory, pods and ephemeral storage, as kube-scheduler classifies them:
// extended resources (a domain other than kubernetes.io), hugepages, prefixed
// native resources and attachable volumes.
func isScalarResourceName(name v1.ResourceName) bool {
	s := string(name)
	switch {
	case strings.HasPrefix(s, v1.ResourceHugePagesPrefix),
		strings.HasPrefix(s, v1.ResourceAttachableVolumesPrefix),
		strings.HasPrefix(s, v1.ResourceDefaultNamespacePrefix):
		return true
	case strings.HasPrefix(s, v1.DefaultResourceRequestsPrefix),
		// Object-count quota names (count/pods), which Volcano's
		// controllers copy from quota usage into a PodGroup's
		// minResources: no node or queue has such a dimension, and as one
		// it would refuse every such PodGroup admission. Volcano skips
		// them too.
		strings.HasPrefix(s, "count/"):
		return false
	}
	// An extended resource is fully qualified and outside kubernetes.io.
	slash := strings.Index(s, "/")
	if slash < 0 {
		return false
	}
	domain := s[:slash]
	return domain != "kubernetes.io" && !strings.HasSuffix(domain, ".kubernetes.io")
}

// ToResourceList converts back to Kubernetes quantities the way Volcano
// does: cpu in milli-units, memory in bytes, pods as a count, other scalars
// in milli-units. Dimensions below the tolerance are left out.
func (r *Resource) ToResourceList() v1.ResourceList {
	out := v1.ResourceList{}
	if r.MilliCPU >= minResource {
		out[v1.ResourceCPU] = *resource.NewMilliQuantity(int64(r.MilliCPU), resource.DecimalSI)
	}
	if r.Memory >= minResource {
		out[v1.ResourceMemory] = *resource.NewQuantity(int64(r.Memory), resource.BinarySI)
	}
	for name, q := range r.Scalars {
		if q < minResource {
			continue
		}
		if name == v1.ResourcePods {
			out[name] = *resource.NewQuantity(int64(q), resource.DecimalSI)
		} else {
			out[name] = *resource.NewMilliQuantity(int64(q), resource.DecimalSI)
		}
	}
	return out
}
