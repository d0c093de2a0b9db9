package dra

// Reusing the allocator's answers within a session.
//
// Filter runs the allocator for every candidate node of every pod, and the
// pods of a job usually ask for the same thing (each its own claim, made
// from one template). The allocator's answer for a node depends only on:
//
//   - the specs of the claims to allocate, in order: the rest of a claim
//     (name, namespace, UID, status) appears only in error messages, and
//     an AllocationResult names requests, drivers, pools and devices,
//     never the claim;
//   - the node object: which slices reach it, and the node selector the
//     result carries;
//   - the slices, classes and allocator features, fixed for the snapshot,
//     and the CEL programs, which depend only on the expression text;
//   - which devices of the pools that reach the node are in use: the
//     allocator asks about no other device, so Filter hands it just those
//     (inUseOnLocked).
//
// Where the allocator picks at random (pools of several drivers on one
// node, pools.go), a stored answer is one of the answers it can give.
//
// So an answer found for one pod serves any pod of the session whose
// claims to allocate have equal specs, on the same node object, until a
// device of a pool reaching that node is taken or given back. Reserve and
// Unreserve are the only writers of the in-use set; they drop the answers
// of exactly the nodes whose pools they touch (a pool published for all
// nodes or through a node selector may reach any node, so touching one of
// those drops every answer). An answer is stored only if no Reserve or
// Unreserve ran while it was computed, so a stored answer always describes
// the current session. Errors are never stored: they name the pod's claim,
// and a search stopped by its context says nothing about the node.
//
// Equal specs are found once per pod, in PreFilter: the specs' protobuf
// encoding (deterministic, maps sorted) finds candidates, and
// reflect.DeepEqual on the specs themselves decides, so the identity is
// exact even where the encoding is not (nil and empty lists).

import (
	"reflect"
	"strconv"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	"k8s.io/dynamic-resource-allocation/structured"
)

// answerKey names a stored answer: the node object it was found for
// (another object of the same name, with other labels say, does not get
// it) and the spec group.
type answerKey struct {
	node  *v1.Node
	group int
}

// answer is the allocator's results for the claims to allocate, in
// order; nil: they do not fit on the node.
type answer struct {
	results []*resourcev1beta1.AllocationResult
}

// specGroup is one list of claim specs that PreFilter has seen.
type specGroup struct {
	id    int
	specs []*resourcev1.ResourceClaimSpec
}

// poolKey names a pool of one driver.
type poolKey struct{ driver, pool string }

// poolReach says which nodes' answers may depend on a pool's devices.
type poolReach struct {
	// nodes have a slice of the pool published for them by name.
	nodes []string
	// shared: some slice of the pool is not tied to one node by name.
	shared bool
}

// specGroupOf returns the id of the group of claims with exactly these
// specs, making one if needed. Callers must not modify the claims later.
func (s *Session) specGroupOf(claims []*resourcev1.ResourceClaim) (int, error) {
	var key []byte
	specs := make([]*resourcev1.ResourceClaimSpec, len(claims))
	for i, c := range claims {
		b, err := c.Spec.Marshal()
		if err != nil {
			return 0, err
		}
		// Length-prefixed, so that the concatenation is unambiguous.
		key = strconv.AppendInt(key, int64(len(b)), 10)
		key = append(key, ':')
		key = append(key, b...)
		specs[i] = &c.Spec
	}
	s.specMu.Lock()
	defer s.specMu.Unlock()
	for _, g := range s.specGroups[string(key)] {
		if reflect.DeepEqual(g.specs, specs) {
			return g.id, nil
		}
	}
	g := specGroup{id: s.numSpecGroups, specs: specs}
	s.numSpecGroups++
	s.specGroups[string(key)] = append(s.specGroups[string(key)], g)
	return g.id, nil
}

// cachedAnswerLocked returns the stored answer for the group on node.
// Callers hold s.mu.
func (s *Session) cachedAnswerLocked(group int, node *v1.Node) (answer, bool) {
	if group >= len(s.answers) {
		return answer{}, false
	}
	a, ok := s.answers[group][node]
	return a, ok
}

// storeAnswer keeps an answer found at session revision rev, unless
// Reserve or Unreserve ran since.
func (s *Session) storeAnswer(rev uint64, key answerKey, a answer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.revision != rev {
		return
	}
	for len(s.answers) <= key.group {
		s.answers = append(s.answers, map[*v1.Node]answer{})
	}
	byNode := s.answers[key.group]
	if _, ok := byNode[key.node]; !ok {
		s.answerKeys[key.node.Name] = append(s.answerKeys[key.node.Name], key)
	}
	byNode[key.node] = a
}

// forgetAnswersLocked drops the answers that may depend on whether the
// devices are in use. Callers hold s.mu for writing.
func (s *Session) forgetAnswersLocked(ids []structured.DeviceID) {
	for _, id := range ids {
		r := s.snap.reach[poolKey{id.Driver.String(), id.Pool.String()}]
		if r.shared {
			for _, byNode := range s.answers {
				clear(byNode)
			}
			clear(s.answerKeys)
			return
		}
		for _, n := range r.nodes {
			for _, key := range s.answerKeys[n] {
				delete(s.answers[key.group], key.node)
			}
			delete(s.answerKeys, n)
		}
	}
}
