package caldera

import "encoding/binary"

// Template keys. The pods of a gang are copies of one template, so a policy
// that computes something per scheduling constraint (node affinity,
// tolerations, host ports) computes it once per group of tasks whose
// constraints encode to the same key. These functions append a
// constraint's encoding to a key: equal encodings mean equal constraints.

// AppendKeyString appends s, length-prefixed.
func AppendKeyString(key []byte, s string) []byte {
	key = binary.AppendUvarint(key, uint64(len(s)))
	return append(key, s...)
}

// AppendKey appends the term: its validity and its requirements in order.
func (t *NodeSelectorTerm) AppendKey(key []byte) []byte {
	if t.Invalid {
		key = append(key, 1)
	} else {
		key = append(key, 0)
	}
	for _, rs := range [][]NodeSelectorRequirement{t.MatchExpressions, t.MatchFields} {
		key = binary.AppendUvarint(key, uint64(len(rs)))
		for _, r := range rs {
			key = AppendKeyString(key, r.Key)
			key = AppendKeyString(key, r.Operator)
			key = binary.AppendUvarint(key, uint64(len(r.Values)))
			for _, v := range r.Values {
				key = AppendKeyString(key, v)
			}
		}
	}
	return key
}

// AppendTolerationsKey appends the tolerations, in order.
func AppendTolerationsKey(key []byte, tolerations []Toleration) []byte {
	key = binary.AppendUvarint(key, uint64(len(tolerations)))
	for _, tol := range tolerations {
		key = AppendKeyString(key, tol.Key)
		key = AppendKeyString(key, tol.Operator)
		key = AppendKeyString(key, tol.Value)
		key = AppendKeyString(key, tol.Effect)
	}
	return key
}

// ByKey finds values by key, for per-template state. It consults its map
// only when a key differs from the one before: the tasks of a job follow
// each other in the view and mostly share a key, and under TinyGo a lookup
// in a map with string keys allocates.
type ByKey[T any] struct {
	m    map[string]T
	last []byte
	val  T
	has  bool
}

// Get returns the value stored under key.
func (b *ByKey[T]) Get(key []byte) (T, bool) {
	if b.has && sameBytes(key, b.last) {
		return b.val, true
	}
	v, ok := b.m[string(key)]
	if ok {
		b.remember(key, v)
	}
	return v, ok
}

// sameBytes is bytes.Equal, which is string(a) == string(b): Go's compiler
// converts neither, TinyGo allocates both. A Get per task of a session of
// 10,000 tasks made 20,000 strings for the collector.
func sameBytes(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Put stores v under key.
func (b *ByKey[T]) Put(key []byte, v T) {
	if b.m == nil {
		b.m = map[string]T{}
	}
	b.m[string(key)] = v
	b.remember(key, v)
}

func (b *ByKey[T]) remember(key []byte, v T) {
	b.last, b.val, b.has = append(b.last[:0], key...), v, true
}
