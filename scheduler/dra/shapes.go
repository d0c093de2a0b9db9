package dra

// Sharing answers between nodes that look alike.
//
// Nodes of one kind publish the same devices: the same slices, devices,
// attributes and capacities, in pools named after the node. The allocator
// treats pool and node names as labels: it compares them (which slices
// form a pool, whether a device is in use, whether a slice is the node's),
// copies them into results (a device's pool, the node selector of a
// node-local allocation) and into error messages; CEL sees neither, nor
// the slice names. So where two nodes' views (pools.go) are equal once
// the pool names are replaced by their order of appearance and the node
// name and slice names are left out, and the same devices (by position)
// are in use on both, the allocator's answer on one is its answer on the
// other with those names exchanged.
//
// The session gives each node that qualifies a shape id, and keeps each
// answer it finds on such a node also under (spec group, shape, devices in
// use). That key holds every input of the search, so these answers never
// go stale; another node of the shape with the same devices in use gets a
// copy with its own names instead of a search. A node qualifies when every
// slice it sees is published for it by name and it has no two pools of
// one driver (merging puts pool names into device names). On a node with
// pools of several drivers the allocator visits the pools in random order
// (pools.go); a copied answer is one it can give there too.

import (
	"reflect"
	"strconv"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
)

// nodeShape is what a node's answers are shared by.
type nodeShape struct {
	// id numbers the shapes of the session; -1: the node does not
	// qualify.
	id   int
	node string
	// pools are the node's pool names in order of appearance.
	pools []string
}

// shapeRep is the first node seen of a shape: its slice specs without
// names.
type shapeRep struct {
	id    int
	specs []resourcev1.ResourceSliceSpec
}

// shapeKey finds an answer shared by nodes of one shape: the spec group,
// the shape, and one byte per device of the view, 1 if it is in use
// (inUseOnLocked).
type shapeKey struct {
	group, shape int
	busy         string
}

// shapeAnswer is an answer as found on the node of shape from.
type shapeAnswer struct {
	from    *nodeShape
	results []*resourcev1beta1.AllocationResult
}

// shapeOf returns node's shape, working it out on first use.
func (s *Session) shapeOf(node *v1.Node) *nodeShape {
	s.shapeMu.Lock()
	defer s.shapeMu.Unlock()
	if sh := s.shapes[node]; sh != nil {
		return sh
	}
	sh := s.newShapeLocked(node)
	s.shapes[node] = sh
	return sh
}

func (s *Session) newShapeLocked(node *v1.Node) *nodeShape {
	sh := &nodeShape{id: -1, node: node.Name}
	idx := s.snap.candidates(node)
	poolOf := map[string]string{} // driver -> its one pool on the node
	for _, i := range idx {
		sl := s.snap.slices[i]
		if s.snap.nodeMatch[i].nodeName != node.Name {
			return sh
		}
		if p, ok := poolOf[sl.Spec.Driver]; ok && p != sl.Spec.Pool.Name {
			return sh
		}
		poolOf[sl.Spec.Driver] = sl.Spec.Pool.Name
	}

	specs := make([]resourcev1.ResourceSliceSpec, len(idx))
	var key []byte
	for k, i := range idx {
		sl := s.snap.slices[i]
		ordinal := indexOf(sh.pools, sl.Spec.Pool.Name)
		if ordinal < 0 {
			ordinal = len(sh.pools)
			sh.pools = append(sh.pools, sl.Spec.Pool.Name)
		}
		// The spec with the names taken out; the copy shares the
		// devices, which are only read.
		spec := sl.Spec
		spec.NodeName = nil
		spec.Pool.Name = strconv.Itoa(ordinal)
		specs[k] = spec
		b, err := spec.Marshal()
		if err != nil {
			return sh
		}
		// Length-prefixed, so that the concatenation is unambiguous.
		key = strconv.AppendInt(key, int64(len(b)), 10)
		key = append(key, ':')
		key = append(key, b...)
	}
	for _, rep := range s.shapeReps[string(key)] {
		if reflect.DeepEqual(rep.specs, specs) {
			sh.id = rep.id
			return sh
		}
	}
	sh.id = s.numShapes
	s.numShapes++
	s.shapeReps[string(key)] = append(s.shapeReps[string(key)], shapeRep{id: sh.id, specs: specs})
	return sh
}

// sharedAnswer returns a stored answer for key, in sh's names.
func (s *Session) sharedAnswer(key shapeKey, sh *nodeShape) (answer, bool) {
	s.shapeMu.Lock()
	a, ok := s.shapeAnswers[key]
	s.shapeMu.Unlock()
	if !ok {
		return answer{}, false
	}
	if a.results == nil || a.from == sh {
		return answer{results: a.results}, true
	}
	return answer{results: a.from.translate(a.results, sh)}, true
}

// shareAnswer keeps an answer found on the node of sh, if its names can
// be exchanged for another node's.
func (s *Session) shareAnswer(key shapeKey, sh *nodeShape, a answer) {
	for _, r := range a.results {
		if !sh.portable(r) {
			return
		}
	}
	s.shapeMu.Lock()
	defer s.shapeMu.Unlock()
	s.shapeAnswers[key] = shapeAnswer{from: sh, results: a.results}
}

// portable reports whether r names nothing of sh's node but its pools and,
// in the node selector kube's allocator makes for node-local devices, the
// node name.
func (sh *nodeShape) portable(r *resourcev1beta1.AllocationResult) bool {
	for _, d := range r.Devices.Results {
		if indexOf(sh.pools, d.Pool) < 0 {
			return false
		}
	}
	ns := r.NodeSelector
	if ns == nil {
		return true
	}
	if len(ns.NodeSelectorTerms) != 1 {
		return false
	}
	t := ns.NodeSelectorTerms[0]
	if len(t.MatchExpressions) != 0 || len(t.MatchFields) != 1 {
		return false
	}
	f := t.MatchFields[0]
	return f.Key == "metadata.name" && f.Operator == v1.NodeSelectorOpIn && len(f.Values) == 1 && f.Values[0] == sh.node
}

// translate copies portable results found on sh's node with the pool and
// node names of to.
func (sh *nodeShape) translate(results []*resourcev1beta1.AllocationResult, to *nodeShape) []*resourcev1beta1.AllocationResult {
	out := make([]*resourcev1beta1.AllocationResult, len(results))
	for i, r := range results {
		c := r.DeepCopy()
		for j := range c.Devices.Results {
			d := &c.Devices.Results[j]
			d.Pool = to.pools[indexOf(sh.pools, d.Pool)]
		}
		if c.NodeSelector != nil {
			c.NodeSelector.NodeSelectorTerms[0].MatchFields[0].Values[0] = to.node
		}
		out[i] = c
	}
	return out
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}
