package dra

import (
	"cmp"
	"slices"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"
)

// celCache holds compiled CEL selectors for the whole process. Compiling is
// the expensive part of evaluating a selector and its result depends only on
// the expression text, so sharing it across sessions is safe; kube-scheduler
// likewise keeps one cache for its lifetime (with 10 entries; more here
// because a simulator replays many classes). The cache is thread-safe.
var celCache = cel.NewCache(256, cel.Features{})

// Snapshot is the DRA view of the cluster for one scheduling session, built
// from the informers' lists. It is never modified after NewSnapshot, so any
// number of sessions and goroutines may read it.
type Snapshot struct {
	// claims by "namespace/name", as given (read-only).
	claims map[string]*resourcev1beta1.ResourceClaim
	// classes by name, converted to v1 for the allocator.
	classes classLister
	// slices converted to v1 as 1.32 sees them, sorted (see sortSlices).
	slices []*resourcev1.ResourceSlice
	// nodeMatch[i] says which nodes can reach slices[i].
	nodeMatch []sliceNodes
	// byNode lists the indices of slices published for one node by name;
	// shared lists all others (all nodes, node selectors, and slices
	// without node selection, which the allocator skips). Both ascending.
	byNode map[string][]int
	shared []int
	// multiPoolDrivers are drivers that publish more than one pool; only
	// those can make the allocator's result depend on pool order.
	multiPoolDrivers sets.Set[string]
	// allocated holds the devices of every allocated claim, except results
	// with admin access, which do not make a device busy.
	allocated sets.Set[structured.DeviceID]
	// allocatedIn holds the same devices by pool, for looking up a
	// node's devices without making their IDs.
	allocatedIn poolDevices
	// reach says, per pool, whose stored answers a change of one of its
	// devices may affect (answers.go).
	reach map[poolKey]poolReach
}

// NewSnapshot indexes the informers' lists. The objects are not copied and
// must not be modified while the snapshot is in use; nil entries are
// skipped.
func NewSnapshot(claims []*resourcev1beta1.ResourceClaim, resourceSlices []*resourcev1beta1.ResourceSlice, classes []*resourcev1beta1.DeviceClass) *Snapshot {
	s := &Snapshot{
		claims:           make(map[string]*resourcev1beta1.ResourceClaim, len(claims)),
		classes:          make(classLister, len(classes)),
		multiPoolDrivers: sets.New[string](),
		allocated:        sets.New[structured.DeviceID](),
		allocatedIn:      poolDevices{},
		reach:            map[poolKey]poolReach{},
	}
	for _, c := range claims {
		if c == nil {
			continue
		}
		s.claims[c.Namespace+"/"+c.Name] = c
		for _, id := range busyDevices(c.Status.Allocation) {
			s.allocated.Insert(id)
			s.allocatedIn.insert(id)
		}
	}
	for _, c := range classes {
		if c != nil {
			s.classes[c.Name] = classToV1(c)
		}
	}
	for _, sl := range resourceSlices {
		if sl != nil {
			s.slices = append(s.slices, narrowSlice(sl))
		}
	}
	sortSlices(s.slices)
	poolsOf := map[string]sets.Set[string]{}
	s.nodeMatch = make([]sliceNodes, len(s.slices))
	s.byNode = map[string][]int{}
	for i, sl := range s.slices {
		s.nodeMatch[i] = newSliceNodes(sl)
		if n := s.nodeMatch[i].nodeName; n != "" {
			s.byNode[n] = append(s.byNode[n], i)
		} else {
			s.shared = append(s.shared, i)
		}
		if poolsOf[sl.Spec.Driver] == nil {
			poolsOf[sl.Spec.Driver] = sets.New[string]()
		}
		poolsOf[sl.Spec.Driver].Insert(sl.Spec.Pool.Name)
		key := poolKey{sl.Spec.Driver, sl.Spec.Pool.Name}
		r := s.reach[key]
		if n := s.nodeMatch[i].nodeName; n == "" {
			r.shared = true
		} else if !slices.Contains(r.nodes, n) {
			r.nodes = append(r.nodes, n)
		}
		s.reach[key] = r
	}
	for driver, pools := range poolsOf {
		if pools.Len() > 1 {
			s.multiPoolDrivers.Insert(driver)
		}
	}
	return s
}

// sortSlices orders slices by driver, pool, generation and name. The
// allocator keeps the given order of slices within a pool and of devices
// within a slice, so this makes its search order independent of the order
// in which the informer listed the objects. Devices inside a slice keep the
// driver's order: it is part of the object.
func sortSlices(list []*resourcev1.ResourceSlice) {
	slices.SortStableFunc(list, func(a, b *resourcev1.ResourceSlice) int {
		return cmp.Or(
			cmp.Compare(a.Spec.Driver, b.Spec.Driver),
			cmp.Compare(a.Spec.Pool.Name, b.Spec.Pool.Name),
			cmp.Compare(a.Spec.Pool.Generation, b.Spec.Pool.Generation),
			cmp.Compare(a.Name, b.Name),
		)
	})
}

// candidates returns, ascending, the indices of the slices that may reach
// node: those published for it by name and all that are not tied to one
// node. Leaving out other nodes' slices does not change the allocator's
// answer (it skips them itself) but spares it converting them on every
// call, which matters with one slice per node and many nodes.
func (s *Snapshot) candidates(node *v1.Node) []int {
	local := s.byNode[node.Name]
	out := make([]int, 0, len(local)+len(s.shared))
	i, j := 0, 0
	for i < len(local) || j < len(s.shared) {
		if j == len(s.shared) || (i < len(local) && local[i] < s.shared[j]) {
			out = append(out, local[i])
			i++
		} else {
			out = append(out, s.shared[j])
			j++
		}
	}
	return out
}

// busyDevices lists the devices an allocation keeps from other claims.
// Results with admin access do not count: such access is meant to be
// possible alongside a normal allocation of the same device.
func busyDevices(a *resourcev1beta1.AllocationResult) []structured.DeviceID {
	if a == nil {
		return nil
	}
	var ids []structured.DeviceID
	for _, r := range a.Devices.Results {
		if ptr.Deref(r.AdminAccess, false) {
			continue
		}
		ids = append(ids, structured.MakeDeviceID(r.Driver, r.Pool, r.Device))
	}
	return ids
}

// sliceNodes is the node selection of one slice, parsed once.
type sliceNodes struct {
	nodeName string
	all      bool
	selector *nodeaffinity.NodeSelector
	// bad is set when the node selector does not parse; the allocator
	// reports that itself, so such slices are only left alone here.
	bad bool
}

func newSliceNodes(sl *resourcev1.ResourceSlice) sliceNodes {
	n := sliceNodes{nodeName: ptr.Deref(sl.Spec.NodeName, ""), all: ptr.Deref(sl.Spec.AllNodes, false)}
	if n.nodeName == "" && !n.all && sl.Spec.NodeSelector != nil {
		sel, err := nodeaffinity.NewNodeSelector(sl.Spec.NodeSelector)
		if err != nil {
			n.bad = true
		} else {
			n.selector = sel
		}
	}
	return n
}

// reaches reports whether the slice's devices are available on node, with
// the allocator's precedence: node name, then all nodes, then selector.
func (n sliceNodes) reaches(node *v1.Node) bool {
	switch {
	case n.nodeName != "":
		return node != nil && node.Name == n.nodeName
	case n.all:
		return true
	case n.selector != nil:
		return n.selector.Match(node)
	}
	return false
}

// classLister serves DeviceClasses to the allocator.
type classLister map[string]*resourcev1.DeviceClass

func (l classLister) List() ([]*resourcev1.DeviceClass, error) {
	out := make([]*resourcev1.DeviceClass, 0, len(l))
	for _, c := range l {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b *resourcev1.DeviceClass) int { return cmp.Compare(a.Name, b.Name) })
	return out, nil
}

func (l classLister) Get(name string) (*resourcev1.DeviceClass, error) {
	if c, ok := l[name]; ok {
		return c, nil
	}
	return nil, apierrors.NewNotFound(resourcev1.Resource("deviceclasses"), name)
}
