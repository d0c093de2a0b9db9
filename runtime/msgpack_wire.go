package runtime

import (
	"encoding/binary"
	"math"
	"slices"

	"github.com/caldera-scheduler/caldera/abi"
)

// Hand-written msgpack, shared by the session view (view_wire.go) and the
// cache_event request (eventhandler_wire.go): the forms msgpack/v5 chooses
// for the abi types, so that the bytes equal what EncodeRequest would make.

func appendStrField(b []byte, key, v string) []byte {
	if v == "" {
		return b
	}
	return appendStr(appendStr(b, key), v)
}

func appendInt32Field(b []byte, key string, v int32) []byte {
	return appendInt32(appendStr(b, key), v)
}

func appendStrMapField(b []byte, key string, m map[string]string) []byte {
	if len(m) == 0 {
		return b
	}
	b = appendStr(b, key)
	b = appendMapLen(b, len(m))
	var buf [16]string
	for _, k := range sortedKeys(m, buf[:0]) {
		b = appendStr(b, k)
		b = appendStr(b, m[k])
	}
	return b
}

func appendResourceField(b []byte, key string, r *abi.Resource) []byte {
	if r == nil {
		return b
	}
	b = appendStr(b, key)
	if len(r.Scalars) == 0 {
		b = appendMapLen(b, 2)
	} else {
		b = appendMapLen(b, 3)
	}
	b = appendStr(b, "cpu")
	b = appendInt64(b, r.MilliCPU)
	b = appendStr(b, "memory")
	b = appendInt64(b, r.Memory)
	if len(r.Scalars) > 0 {
		b = appendStr(b, "scalars")
		b = appendMapLen(b, len(r.Scalars))
		var buf [8]string
		for _, k := range sortedKeys(r.Scalars, buf[:0]) {
			b = appendStr(b, k)
			b = appendInt64(b, r.Scalars[k])
		}
	}
	return b
}

// countTrue counts the optional fields present, for a map header.
func countTrue(present ...bool) int {
	n := 0
	for _, p := range present {
		if p {
			n++
		}
	}
	return n
}

// appendTaintsField writes taints, omitempty, as a node of the view and a
// cache_event object both carry them.
func appendTaintsField(b []byte, taints []abi.Taint) []byte {
	if len(taints) == 0 {
		return b
	}
	b = appendArrayLen(appendStr(b, "taints"), len(taints))
	for _, t := range taints {
		b = appendMapLen(b, 3)
		b = appendStr(appendStr(b, "key"), t.Key)
		b = appendStr(appendStr(b, "value"), t.Value)
		b = appendStr(appendStr(b, "effect"), t.Effect)
	}
	return b
}

// sortedKeys returns m's keys in order, in keys (stack space the caller
// offers, so that a small map costs no allocation).
func sortedKeys[V any](m map[string]V, keys []string) []string {
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// The msgpack primitives, in the forms msgpack/v5 chooses.

func appendNil(b []byte) []byte { return append(b, 0xc0) }

func appendStr(b []byte, s string) []byte {
	switch n := len(s); {
	case n < 32:
		b = append(b, 0xa0|byte(n))
	case n < 256:
		b = append(b, 0xd9, byte(n))
	case n <= math.MaxUint16:
		b = binary.BigEndian.AppendUint16(append(b, 0xda), uint16(n))
	default:
		b = binary.BigEndian.AppendUint32(append(b, 0xdb), uint32(n))
	}
	return append(b, s...)
}

func appendMapLen(b []byte, n int) []byte   { return appendLen(b, n, 0x80, 0xde) }
func appendArrayLen(b []byte, n int) []byte { return appendLen(b, n, 0x90, 0xdc) }

// appendLen writes a map or array header: fix form below 16, then the
// 16-bit form (code16) and the 32-bit one (code16+1).
func appendLen(b []byte, n int, fix, code16 byte) []byte {
	switch {
	case n < 16:
		return append(b, fix|byte(n))
	case n <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(b, code16), uint16(n))
	default:
		return binary.BigEndian.AppendUint32(append(b, code16+1), uint32(n))
	}
}

func appendInt32(b []byte, v int32) []byte {
	return binary.BigEndian.AppendUint32(append(b, 0xd2), uint32(v))
}

func appendInt64(b []byte, v int64) []byte {
	return binary.BigEndian.AppendUint64(append(b, 0xd3), uint64(v))
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 0xc3)
	}
	return append(b, 0xc2)
}
