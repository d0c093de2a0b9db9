package podrules

import (
	"encoding/binary"
	"slices"
	"strings"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

// TemplateKey appends to key a byte string equal for two tasks exactly
// when every field these rules read of a task is equal: namespace, labels,
// pod affinity and anti-affinity and their parse error, spread
// constraints, node selector, required node affinity and tolerations.
// Tasks of one template share their states (ByKey). The caller keeps
// scratch between calls, so that a key costs no allocation.
func TemplateKey(key []byte, scratch *KeyScratch, t *caldera.Task) []byte {
	key = caldera.AppendKeyString(key, t.Namespace)
	key = scratch.appendMap(key, t.Labels)
	key = scratch.appendMap(key, t.NodeSelector)
	for _, a := range [...]*caldera.PodAffinity{t.PodAffinity, t.PodAntiAffinity} {
		if a == nil {
			key = append(key, 0)
			continue
		}
		key = append(key, 1)
		key, _ = a.MarshalMsg(key)
	}
	key = caldera.AppendKeyString(key, t.AffinityError)
	key = binary.AppendUvarint(key, uint64(len(t.SpreadConstraints)))
	for i := range t.SpreadConstraints {
		key, _ = t.SpreadConstraints[i].MarshalMsg(key)
	}
	key = appendBool(key, t.SpreadDefaulted)
	if na := t.NodeAffinity; na != nil && na.Required != nil {
		key = binary.AppendUvarint(key, uint64(len(na.Required.Terms)+1))
		for i := range na.Required.Terms {
			key = na.Required.Terms[i].AppendKey(key)
		}
	} else {
		key = append(key, 0)
	}
	return caldera.AppendTolerationsKey(key, t.Tolerations)
}

// KeyScratch is the space TemplateKey sorts labels in.
type KeyScratch struct{ entries []entry }

type entry struct{ key, value string }

// appendMap appends a map's entries in key order, after their count. The
// entries are gathered with their values: in TinyGo a lookup by string
// allocates.
func (s *KeyScratch) appendMap(key []byte, m map[string]string) []byte {
	entries := s.entries[:0]
	for k, v := range m {
		entries = append(entries, entry{k, v})
	}
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.key, b.key) })
	s.entries = entries
	key = binary.AppendUvarint(key, uint64(len(entries)))
	for _, e := range entries {
		key = caldera.AppendKeyString(caldera.AppendKeyString(key, e.key), e.value)
	}
	return key
}

// HasRules reports whether any pod of the view, pending or on a node, has
// inter-pod affinity terms or spread constraints of its own: without any,
// the rules pass every node and score nothing but system default spread
// constraints (HasSpreadDefaults).
func HasRules(v *caldera.View) bool {
	for i := range v.Tasks {
		t := &v.Tasks[i]
		if t.PodAffinity != nil || t.PodAntiAffinity != nil || t.AffinityError != "" || len(t.SpreadConstraints) > 0 && !t.SpreadDefaulted {
			return true
		}
	}
	for i := range v.Nodes {
		for j := range v.Nodes[i].Others {
			if o := &v.Nodes[i].Others[j]; o.PodAffinity != nil || o.PodAntiAffinity != nil {
				return true
			}
		}
	}
	return false
}

// ScoresAnything reports whether the InterPodAffinity score (when
// affinity, hard being hardPodAffinityWeight) or the PodTopologySpread
// score (when spread) can tell any two nodes apart, or fail, for some task
// of the view. Without that they add 0 to every node for every task of the
// session, and a scorer may leave them out: kube-scheduler scores inter-pod
// affinity from the task's preferred terms and every pod's required
// affinity (times hard) and preferred terms, spread from the task's
// ScheduleAnyway constraints or system defaults, and fails for rules that
// do not parse.
func ScoresAnything(v *caldera.View, affinity bool, hard int32, spread bool) bool {
	scoring := func(aff, anti *caldera.PodAffinity) bool {
		return len(preferred(aff)) > 0 || len(preferred(anti)) > 0 || hard > 0 && len(required(aff)) > 0
	}
	for i := range v.Tasks {
		t := &v.Tasks[i]
		if affinity && (t.AffinityError != "" || scoring(t.PodAffinity, t.PodAntiAffinity)) {
			return true
		}
		if spread && t.SpreadDefaulted {
			return true
		}
		for j := range t.SpreadConstraints {
			if spread && t.SpreadConstraints[j].WhenUnsatisfiable == "ScheduleAnyway" {
				return true
			}
		}
	}
	for i := range v.Nodes {
		for j := range v.Nodes[i].Others {
			if o := &v.Nodes[i].Others[j]; affinity && scoring(o.PodAffinity, o.PodAntiAffinity) {
				return true
			}
		}
	}
	return false
}

// HasSpreadDefaults reports whether any pending task of the view carries
// system default spread constraints, which only the score applies.
func HasSpreadDefaults(v *caldera.View) bool {
	for i := range v.Tasks {
		if t := &v.Tasks[i]; t.SpreadDefaulted && t.Status == caldera.Pending {
			return true
		}
	}
	return false
}

func appendBool(key []byte, b bool) []byte {
	if b {
		return append(key, 1)
	}
	return append(key, 0)
}
