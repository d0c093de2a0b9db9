package runtime

import (
	"math/bits"

	"github.com/caldera-scheduler/caldera/abi"
)

// Domain rules (ABI 1.5) let a node-local class serve tasks whose own
// inter-pod affinity or spread rules read other nodes. Such a rule reads
// one thing of the node it judges, the value of one label (its topology
// domain), and the module sends, with the task's pre_predicate verdict,
// which values fail. The host sorts each node by the rules it fails and
// keeps verdicts under that: a spread gang's pods share the verdicts of
// the nodes in its zones that are full with each other, and with plain
// tasks of their shape on the nodes where every rule passes.

// domainKey numbers the values of one label key on the session's nodes:
// of[node handle] is the number of the node's value, -1 when it lacks the
// key.
type domainKey struct {
	of  []int32
	ids map[string]int32
}

// taskRules are the domain rules of one pre_predicate, ready to sort
// nodes. A pre_predicate makes new ones: a task-epoch's cache holds on to
// them while later pre_predicates are asked.
type taskRules struct {
	ruleClass int32
	rules     []taskRule
	// unusable says the module sent rules the host cannot apply (too many,
	// an unknown failing state): the task is then served without kept
	// verdicts, as the rules' absence would wrongly allow.
	unusable bool
}

type taskRule struct {
	of     []int32
	listed []bool
	fail   abi.RuleFail
}

// domainKeyOf numbers key's values once per session.
func (a *adapter) domainKeyOf(key string) *domainKey {
	if dk, ok := a.domainKeys[key]; ok {
		return dk
	}
	nodes := a.ssn.NodeList
	dk := &domainKey{of: make([]int32, len(nodes)), ids: map[string]int32{}}
	for h, n := range nodes {
		dk.of[h] = -1
		if n == nil || n.Node == nil {
			continue
		}
		v, ok := n.Node.Labels[key]
		if !ok {
			continue
		}
		id, seen := dk.ids[v]
		if !seen {
			id = int32(len(dk.ids))
			dk.ids[v] = id
		}
		dk.of[h] = id
	}
	if a.domainKeys == nil {
		a.domainKeys = map[string]*domainKey{}
	}
	a.domainKeys[key] = dk
	return dk
}

// compileRules prepares a pre_predicate's rules; nil when it sent none.
// An empty list is rules too: the task's inter-pod rules pass every node
// as of now.
func (a *adapter) compileRules(dr *abi.DomainRules) *taskRules {
	if dr == nil {
		return nil
	}
	tr := &taskRules{ruleClass: dr.RuleClass}
	if len(dr.Rules) > abi.MaxDomainRules {
		tr.unusable = true
		return tr
	}
	tr.rules = make([]taskRule, len(dr.Rules))
	for i, r := range dr.Rules {
		if !r.Fail.Valid() {
			tr.unusable = true
			return tr
		}
		dk := a.domainKeyOf(r.Key)
		listed := make([]bool, len(dk.ids))
		for _, v := range r.Values {
			// A value no node carries sorts no node.
			if id, ok := dk.ids[v]; ok {
				listed[id] = true
			}
		}
		tr.rules[i] = taskRule{of: dk.of, listed: listed, fail: r.Fail}
	}
	return tr
}

// failures says which rules node h fails, and in which state: two bits
// per rule, 0 where it passes. Zero means every rule passes.
func (tr *taskRules) failures(h int32) uint64 {
	var sig uint64
	for i := range tr.rules {
		r := &tr.rules[i]
		state := abi.FailMissing
		if int(h) < len(r.of) {
			if id := r.of[h]; id >= 0 {
				state = abi.FailUnlisted
				if r.listed[id] {
					state = abi.FailListed
				}
			}
		}
		if r.fail&state != 0 {
			sig |= uint64(bits.TrailingZeros32(uint32(state))+1) << (2 * i)
		}
	}
	return sig
}

// keyAt is what a verdict on node h is kept under for the cache's
// task-epoch: its shape and class where every rule passes, and otherwise
// also the rules' class and which of them fail.
func (c *predicateCache) keyAt(h int32) uint64 {
	if c.rules == nil {
		return c.shape
	}
	sig := c.rules.failures(h)
	if sig == 0 {
		return c.shape
	}
	return mix64(c.ruleShape, sig)
}

// mix64 folds v into a digest, as classShape does.
func mix64(digest, v uint64) uint64 {
	const prime = 1099511628211
	for i := range 8 {
		digest ^= uint64(byte(v >> (8 * i)))
		digest *= prime
	}
	return digest
}
