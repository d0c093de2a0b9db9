package dra

// Making the allocator's choice deterministic.
//
// The allocator walks candidate devices pool by pool, and it collects the
// pools reachable from a node in a Go map, so when two pools of one driver
// on a node both hold devices that fit a request, which one it takes differs
// from run to run (kube-scheduler has the same randomness). Sorting the
// input cannot fix that. Instead, for a driver with two or more reachable
// pools on the node, the allocator is shown one merged pool: the member
// pools' current slices in pool-name order, each device renamed
// "<pool>/<device>" (device names cannot contain "/", so this is unique) and
// the pool named "<poolA>+<poolB>..." ("+" cannot occur in pool names). The
// walk through the merged pool visits devices in exactly the order kube's
// walk does when its map happens to yield the pools sorted by name, so the
// answer is one kube can give, now always the same one. Results are renamed
// back before anyone sees them.
//
// What merging preserves: node selection stays per slice; a merged pool is
// complete only if every member is (this matters for allocation mode All);
// a member with duplicate device names still makes the merged pool invalid.
// What it cannot fix: a request whose devices may come from two different
// drivers on one node; pools of different drivers stay separate (the driver
// is part of the device's identity and of its CEL view), so their order
// remains random. Requests normally select one driver through their class.

import (
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"
)

// deviceKey names a device in allocator results.
type deviceKey struct{ driver, pool, device string }

// nodeView is what the allocator is given for one node.
type nodeView struct {
	slices []*resourcev1.ResourceSlice
	inUse  sets.Set[structured.DeviceID]
	// renamed maps merged names back to the real ones; nil if nothing
	// was merged.
	renamed map[deviceKey]deviceKey
}

// viewForNode returns the slices and in-use set for node, merging pools as
// described above when needed. It only reads its inputs.
func (s *Snapshot) viewForNode(node *v1.Node, inUse sets.Set[structured.DeviceID]) nodeView {
	idx := s.candidates(node)
	view := nodeView{inUse: inUse}
	if s.multiPoolDrivers.Len() == 0 {
		view.slices = make([]*resourcev1.ResourceSlice, len(idx))
		for k, i := range idx {
			view.slices[k] = s.slices[i]
		}
		return view
	}

	// Reachable slices of multi-pool drivers, per driver and pool, in
	// sorted order (idx is ascending and s.slices sorted).
	type pool struct {
		name   string
		slices []*resourcev1.ResourceSlice
	}
	byDriver := map[string][]*pool{}
	skip := sets.New[string]()
	for _, i := range idx {
		sl := s.slices[i]
		driver := sl.Spec.Driver
		if !s.multiPoolDrivers.Has(driver) {
			continue
		}
		if s.nodeMatch[i].bad {
			// Let the allocator report the broken selector as it would.
			skip.Insert(driver)
			continue
		}
		if !s.nodeMatch[i].reaches(node) {
			continue
		}
		pools := byDriver[driver]
		if n := len(pools); n == 0 || pools[n-1].name != sl.Spec.Pool.Name {
			pools = append(pools, &pool{name: sl.Spec.Pool.Name})
			byDriver[driver] = pools
		}
		p := pools[len(pools)-1]
		// Only the newest generation of a pool counts; slices are
		// sorted by generation within a pool.
		if len(p.slices) > 0 && p.slices[0].Spec.Pool.Generation < sl.Spec.Pool.Generation {
			p.slices = p.slices[:0]
		}
		p.slices = append(p.slices, sl)
	}
	merge := sets.New[string]()
	for driver, pools := range byDriver {
		if len(pools) > 1 && !skip.Has(driver) {
			merge.Insert(driver)
		}
	}

	for _, i := range idx {
		if sl := s.slices[i]; !merge.Has(sl.Spec.Driver) {
			view.slices = append(view.slices, sl)
		}
	}
	if merge.Len() == 0 {
		return view
	}
	view.renamed = map[deviceKey]deviceKey{}
	var extraInUse []structured.DeviceID
	for _, driver := range sets.List(merge) {
		pools := byDriver[driver]
		names := make([]string, len(pools))
		numSlices, complete := 0, true
		for i, p := range pools {
			names[i] = p.name
			numSlices += len(p.slices)
			if int64(len(p.slices)) != p.slices[0].Spec.Pool.ResourceSliceCount {
				complete = false
			}
		}
		merged := strings.Join(names, "+")
		count := int64(numSlices)
		if !complete {
			count++ // keeps the merged pool incomplete
		}
		for _, p := range pools {
			for _, sl := range p.slices {
				cp := *sl
				cp.Spec.Pool = resourcev1.ResourcePool{Name: merged, Generation: 0, ResourceSliceCount: count}
				cp.Spec.Devices = slices.Clone(sl.Spec.Devices)
				for i := range cp.Spec.Devices {
					d := &cp.Spec.Devices[i]
					newName := p.name + "/" + d.Name
					view.renamed[deviceKey{driver, merged, newName}] = deviceKey{driver, p.name, d.Name}
					if inUse.Has(structured.MakeDeviceID(driver, p.name, d.Name)) {
						extraInUse = append(extraInUse, structured.MakeDeviceID(driver, merged, newName))
					}
					d.Name = newName
				}
				view.slices = append(view.slices, &cp)
			}
		}
	}
	if len(extraInUse) > 0 {
		view.inUse = inUse.Clone().Insert(extraInUse...)
	}
	return view
}

// restore renames merged devices in allocator results back to their pools.
func (v nodeView) restore(results []resourcev1.AllocationResult) {
	if v.renamed == nil {
		return
	}
	for i := range results {
		for j := range results[i].Devices.Results {
			r := &results[i].Devices.Results[j]
			if orig, ok := v.renamed[deviceKey{r.Driver, r.Pool, r.Device}]; ok {
				r.Pool, r.Device = orig.pool, orig.device
			}
		}
	}
}
