package podrules

import (
	"encoding/binary"
	"sort"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

// TemplateKey appends to key a byte string equal for two tasks exactly
// when every field these rules read of a task is equal: namespace, labels,
// pod affinity and anti-affinity and their parse error, spread
// constraints, node selector, required node affinity and tolerations.
// Tasks of one template share their states (ByKey).
func TemplateKey(key []byte, t *caldera.Task) []byte {
	key = caldera.AppendKeyString(key, t.Namespace)
	key = appendMapKey(key, t.Labels)
	key = appendMapKey(key, t.NodeSelector)
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

// appendMapKey appends a map's entries in key order, after their count.
func appendMapKey(key []byte, m map[string]string) []byte {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	key = binary.AppendUvarint(key, uint64(len(keys)))
	for _, k := range keys {
		key = caldera.AppendKeyString(caldera.AppendKeyString(key, k), m[k])
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
