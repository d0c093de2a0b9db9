package runtime

import (
	"slices"

	"github.com/caldera-scheduler/caldera/abi"
)

// verdictWays is how many kept verdicts a node holds, each for another
// shape or node-local class. One slot per node made tasks of two classes
// that take turns on the same nodes (a session's plain tasks, and gangs
// whose own anti-affinity gives each its class) overwrite each other's
// verdicts, so the plain tasks were asked again about half the nodes they
// walked.
const verdictWays = 4

// keptVerdicts holds verdicts kept per node handle, up to verdictWays per
// node, the most recently used first. Slots hold no pointers (a reason is
// a number in reasons): a search reads them for millions of nodes per
// session, and the collector need not scan them.
type keptVerdicts struct {
	slots   []keptVerdict
	reasons []string
	ids     map[string]uint32
}

type keptVerdict struct {
	shape, generation uint64
	code              abi.Code
	reason            uint32
	valid             bool
}

// maxKeptReasons bounds the reasons a store numbers: a module that words
// every verdict differently empties it rather than growing it.
const maxKeptReasons = 4096

// size makes room for a session's nodes, keeping what is held when the
// node count is unchanged (handles number nodes the same way then).
func (s *keptVerdicts) size(nodes int) {
	if len(s.slots) != nodes*verdictWays {
		s.slots = make([]keptVerdict, nodes*verdictWays)
	}
}

// of returns node h's slots, or nil when the store has none for it.
func (s *keptVerdicts) of(h int32) []keptVerdict {
	i := int(h) * verdictWays
	if h < 0 || i+verdictWays > len(s.slots) {
		return nil
	}
	return s.slots[i : i+verdictWays : i+verdictWays]
}

// find returns the verdict kept on node h for a task of this shape at the
// node's generation, and moves it to the front of the node's slots.
func (s *keptVerdicts) find(h int32, shape, generation uint64) (abi.Verdict, bool) {
	ways := s.of(h)
	for i := range ways {
		if k := ways[i]; k.valid && k.shape == shape && k.generation == generation {
			if i > 0 {
				copy(ways[1:i+1], ways[:i])
				ways[0] = k
			}
			return abi.Verdict{Code: k.code, Reason: s.reasons[k.reason]}, true
		}
	}
	return abi.Verdict{}, false
}

// put keeps a verdict at the front of node h's slots. It replaces the
// slot of the same shape, else the least recently used one: a slot of an
// older generation of the node is never used again, so it is behind every
// slot kept or found since the node changed.
func (s *keptVerdicts) put(h int32, shape, generation uint64, v abi.Verdict) {
	ways := s.of(h)
	if ways == nil {
		return
	}
	reason, ok := s.ids[v.Reason]
	if !ok {
		if len(s.reasons) == maxKeptReasons {
			s.reset()
		}
		if s.ids == nil {
			s.ids = map[string]uint32{}
		}
		reason = uint32(len(s.reasons))
		s.reasons = append(s.reasons, v.Reason)
		s.ids[v.Reason] = reason
	}
	victim := slices.IndexFunc(ways, func(k keptVerdict) bool { return k.valid && k.shape == shape })
	if victim < 0 {
		victim = len(ways) - 1
	}
	copy(ways[1:victim+1], ways[:victim])
	ways[0] = keptVerdict{shape: shape, generation: generation, code: v.Code, reason: reason, valid: true}
}

// drop invalidates every verdict kept for these nodes.
func (s *keptVerdicts) drop(nodes []int32) {
	for _, h := range nodes {
		ways := s.of(h)
		for i := range ways {
			ways[i].valid = false
		}
	}
}

// reset invalidates every verdict, keeping the storage.
func (s *keptVerdicts) reset() {
	clear(s.slots)
	s.reasons = s.reasons[:0]
	clear(s.ids)
}
