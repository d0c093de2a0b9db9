package podrules

import caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"

// Domain rules (caldera.DomainRuler) restate the filters' states as rules
// on one label of a node each: on a scheduler that reads them, a task's
// verdicts are node-local apart from these rules, and the scheduler
// answers most nodes of a search from verdicts it keeps.

// Rule kinds, one byte per rule appended to a caller's kinds: tasks whose
// rules have the same kinds, in the same order, word the same failures
// alike, so they may share a rule class.
const (
	KindAffinity     = 'a' // a required affinity term
	KindAnti         = 'n' // a required anti-affinity term
	KindExistingAnti = 'e' // existing pods' anti-affinity, one key
	KindSpread       = 's' // a DoNotSchedule spread constraint
)

// RuledClasses gives each task of the view its node-local class on a
// scheduler that reads domain rules: 0 for every task whose terms and
// constraints parse, since all that its InterPodAffinity and
// PodTopologySpread filters read of other nodes is in its rules; -1 for
// the rest, which PrePredicate rejects.
func RuledClasses(v *caldera.View, affinity, spread bool, classes []int32) {
	for i := range v.Tasks {
		t := &v.Tasks[i]
		classes[i] = 0
		if affinity && t.AffinityError != "" {
			classes[i] = -1
			continue
		}
		if spread {
			for j := range t.SpreadConstraints {
				if t.SpreadConstraints[j].Error != "" {
					classes[i] = -1
					break
				}
			}
		}
	}
}

// AppendRules adds the filter's rules in the order Filter checks them and
// returns kinds with theirs appended. A node passes them all exactly when
// Filter passes it.
func (f *AffinityFilter) AppendRules(out *caldera.DomainRules, kinds []byte) []byte {
	if len(f.requiredAffinity) > 0 {
		// The first pod of a group passes on every node with the keys.
		first := f.affinity.nonzero == 0 && matchesAll(f.requiredAffinity, f.namespace, f.labels)
		for i := range f.requiredAffinity {
			key := f.requiredAffinity[i].key
			if first {
				out.Add(key, caldera.FailMissing)
			} else {
				f.affinity.appendCounted(out.Add(key, caldera.FailMissing|caldera.FailUnlisted), key)
			}
			kinds = append(kinds, KindAffinity)
		}
	}
	if f.anti.nonzero > 0 {
		for i := range f.requiredAnti {
			key := f.requiredAnti[i].key
			f.anti.appendCounted(out.Add(key, caldera.FailListed), key)
			kinds = append(kinds, KindAnti)
		}
	}
	for i := range f.existingAnti.keys {
		if kt := &f.existingAnti.keys[i]; kt.nonzero > 0 {
			kt.appendCounted(out.Add(kt.key, caldera.FailListed))
			kinds = append(kinds, KindExistingAnti)
		}
	}
	return kinds
}

// AppendRules adds a rule per constraint, in Filter's order: a node fails
// where it lacks the key or its domain is one where the task would break
// the skew.
func (f *SpreadFilter) AppendRules(out *caldera.DomainRules, kinds []byte) []byte {
	for i, c := range f.cs {
		r := out.Add(c.TopologyKey, caldera.FailMissing|caldera.FailListed)
		dc := f.counts[i]
		var minMatch int32
		if dc.nKnown >= int(c.MinDomains) {
			minMatch = dc.min
		}
		for id, n := range dc.counts {
			if n+f.selfMatch[i]-minMatch > c.MaxSkew {
				r.Values = append(r.Values, f.names[i][id])
			}
		}
		kinds = append(kinds, KindSpread)
	}
	return kinds
}

// appendCounted lists the domains of key that hold a count.
func (t *domainTally) appendCounted(r *caldera.DomainRule, key string) {
	for i := range t.keys {
		if t.keys[i].key == key {
			t.keys[i].appendCounted(r)
			return
		}
	}
}

func (kt *keyTally) appendCounted(r *caldera.DomainRule) {
	if kt.counts != nil {
		for id, n := range kt.counts {
			if n > 0 {
				r.Values = append(r.Values, kt.names[id])
			}
		}
		return
	}
	for id, n := range kt.sparse {
		if n > 0 {
			r.Values = append(r.Values, kt.names[id])
		}
	}
}
