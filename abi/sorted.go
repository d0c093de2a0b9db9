package abi

import (
	"sort"

	"github.com/vmihailenco/msgpack/v5"
)

// The host encodes maps with their keys in order, so that an object always
// encodes to the same bytes: view deltas compare digests of those bytes,
// and the golden vectors pin them. The msgpack encoder sorts only maps of
// strings and interfaces; these types sort their own.

// EncodeMsgpack writes {cpu, memory[, scalars]} with scalars by name.
func (r Resource) EncodeMsgpack(enc *msgpack.Encoder) error {
	n := 2
	if len(r.Scalars) > 0 {
		n = 3
	}
	if err := enc.EncodeMapLen(n); err != nil {
		return err
	}
	for _, f := range []struct {
		key string
		v   int64
	}{{"cpu", r.MilliCPU}, {"memory", r.Memory}} {
		if err := enc.EncodeString(f.key); err != nil {
			return err
		}
		if err := enc.EncodeInt64(f.v); err != nil {
			return err
		}
	}
	if n == 2 {
		return nil
	}
	if err := enc.EncodeString("scalars"); err != nil {
		return err
	}
	return encodeSorted(enc, r.Scalars, enc.EncodeInt64)
}

// RoleCounts is a count per task role (a PodGroup's minTaskMember).
type RoleCounts map[string]int32

// EncodeMsgpack writes the counts by role name.
func (c RoleCounts) EncodeMsgpack(enc *msgpack.Encoder) error {
	return encodeSorted(enc, c, func(v int32) error { return enc.EncodeInt32(v) })
}

func encodeSorted[V any](enc *msgpack.Encoder, m map[string]V, value func(V) error) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if err := enc.EncodeMapLen(len(keys)); err != nil {
		return err
	}
	for _, k := range keys {
		if err := enc.EncodeString(k); err != nil {
			return err
		}
		if err := value(m[k]); err != nil {
			return err
		}
	}
	return nil
}
