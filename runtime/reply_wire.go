package runtime

import (
	"encoding/binary"
	"math"

	"github.com/caldera-scheduler/caldera/abi"
)

// okResult returns the result of a reply whose code is OK, read by hand;
// ok is false for any other reply, and for a malformed one, which
// DecodeReply leaves to reflection (BenchmarkDecodeReply).
func okResult(raw []byte) (result []byte, ok bool) {
	if len(raw) == 0 || raw[0] != 0x93 {
		return nil, false
	}
	code, rest, ok := readInt(raw[1:])
	if !ok || code != int64(abi.OK) {
		return nil, false
	}
	if _, rest, ok = readStr(rest); !ok || len(rest) == 0 {
		return nil, false
	}
	return rest, true
}

// decodeResult reads, without reflection, the answers a session asks for
// thousands of times: bool and small-int answers, predicate_batch's
// verdicts and node_order_batch's scores (by reflection a verdict cost
// about as much as the guest took to decide it). It reports false for any
// other type and for any form it does not expect, leaving out for the
// reflection path to fill; the result must be the whole of b.
func decodeResult(b []byte, out any) bool {
	if len(b) == 1 && b[0] == 0xc0 {
		return true // no result: out stays as it was, as decodeReplyReflect leaves it
	}
	switch o := out.(type) {
	case *bool:
		if len(b) == 1 && (b[0] == 0xc2 || b[0] == 0xc3) {
			*o = b[0] == 0xc3
			return true
		}
	case *int32:
		if len(b) == 1 && (b[0] < 0x80 || b[0] >= 0xe0) {
			*o = int32(int8(b[0]))
			return true
		}
	case *[]abi.Verdict:
		return decodeVerdicts(b, o)
	case *[]float64:
		return decodeFloats(b, o)
	case *[]abi.Key:
		return decodeKeys(b, o)
	case *abi.ValidateResult:
		return decodeValidate(b, o)
	}
	return false
}

func decodeVerdicts(b []byte, out *[]abi.Verdict) bool {
	n, b, ok := readArrayLen(b)
	if !ok {
		return false
	}
	vs := reuse(*out, n)
	// Reasons repeat ("Insufficient cpu" on most of 256 nodes): one string
	// each per reply.
	var seen [8]string
	known := 0
	for range n {
		var m int
		if m, b, ok = readArrayLen(b); !ok || m != 2 {
			return false
		}
		var code int64
		if code, b, ok = readInt(b); !ok || code < math.MinInt32 || code > math.MaxInt32 {
			return false
		}
		var reason []byte
		if reason, b, ok = readStr(b); !ok {
			return false
		}
		v := abi.Verdict{Code: abi.Code(code)}
		if len(reason) > 0 {
			i := 0
			for i < known && seen[i] != string(reason) {
				i++
			}
			if i == known {
				s := string(reason)
				if known < len(seen) {
					seen[known] = s
					known++
				}
				v.Reason = s
			} else {
				v.Reason = seen[i]
			}
		}
		vs = append(vs, v)
	}
	if len(b) != 0 {
		return false
	}
	*out = vs
	return true
}

func decodeFloats(b []byte, out *[]float64) bool {
	n, b, ok := readArrayLen(b)
	if !ok {
		return false
	}
	fs, b, ok := appendNFloats(reuse(*out, n), b, n)
	if !ok || len(b) != 0 {
		return false
	}
	*out = fs
	return true
}

// decodeKeys reads order keys, each a list of numbers. The keys share one
// array: a reply of n keys is two allocations (more only if keys average
// over two numbers), not n+1.
func decodeKeys(b []byte, out *[]abi.Key) bool {
	n, b, ok := readArrayLen(b)
	if !ok {
		return false
	}
	keys := reuse(*out, n)
	all := make([]float64, 0, 2*n)
	for range n {
		if len(b) > 0 && b[0] == 0xc0 {
			keys, b = append(keys, nil), b[1:]
			continue
		}
		start := len(all)
		if all, b, ok = appendFloats(all, b); !ok {
			return false
		}
		// Capped, so that no key's append can write into the next one.
		keys = append(keys, all[start:len(all):len(all)])
	}
	if len(b) != 0 {
		return false
	}
	*out = keys
	return true
}

// decodeValidate reads job_valid's answer, a map of pass, reason and
// message in any order. As with reflection, a field the map leaves out
// keeps its value; a key it does not know is left to reflection.
func decodeValidate(b []byte, out *abi.ValidateResult) bool {
	if len(b) == 0 || b[0]&0xf0 != 0x80 {
		return false
	}
	n, b := int(b[0]&0x0f), b[1:]
	r := *out
	for range n {
		key, rest, ok := readStr(b)
		if !ok || len(rest) == 0 {
			return false
		}
		switch b = rest; string(key) {
		case "pass":
			switch b[0] {
			case 0xc2, 0xc0:
				r.Pass = false
			case 0xc3:
				r.Pass = true
			default:
				return false
			}
			b = b[1:]
		case "reason", "message":
			var v []byte
			if v, b, ok = readStr(b); !ok {
				return false
			}
			if key[0] == 'r' {
				r.Reason = string(v)
			} else {
				r.Message = string(v)
			}
		default:
			return false
		}
	}
	if len(b) != 0 {
		return false
	}
	*out = r
	return true
}

// appendFloats reads an array of numbers, in any of msgpack's number
// forms but uint64, onto fs.
func appendFloats(fs []float64, b []byte) ([]float64, []byte, bool) {
	n, b, ok := readArrayLen(b)
	if !ok {
		return fs, b, false
	}
	return appendNFloats(fs, b, n)
}

// appendNFloats appends the next n numbers of b to fs.
func appendNFloats(fs []float64, b []byte, n int) ([]float64, []byte, bool) {
	var ok bool
	for range n {
		if len(b) == 0 {
			return fs, b, false
		}
		switch c := b[0]; {
		case c == 0xcb && len(b) >= 9:
			fs = append(fs, math.Float64frombits(binary.BigEndian.Uint64(b[1:])))
			b = b[9:]
		case c == 0xca && len(b) >= 5:
			fs = append(fs, float64(math.Float32frombits(binary.BigEndian.Uint32(b[1:]))))
			b = b[5:]
		default:
			var v int64
			if v, b, ok = readInt(b); !ok {
				return fs, b, false
			}
			fs = append(fs, float64(v))
		}
	}
	return fs, b, true
}

// reuse empties s for n elements, keeping its array when it has room, as
// msgpack/v5 decodes into a slice; an empty array read is an empty slice,
// not nil.
func reuse[T any](s []T, n int) []T {
	if cap(s) < n || s == nil {
		return make([]T, 0, n)
	}
	return s[:0]
}

// readArrayLen reads an array header.
func readArrayLen(b []byte) (n int, rest []byte, ok bool) {
	if len(b) == 0 {
		return 0, b, false
	}
	switch c := b[0]; {
	case c&0xf0 == 0x90:
		return int(c & 0x0f), b[1:], true
	// Each element takes a byte at least: a larger count is a lie, refused
	// before anything is allocated for it.
	case c == 0xdc && len(b) >= 3:
		n := int(binary.BigEndian.Uint16(b[1:]))
		if n > len(b)-3 {
			return 0, b, false
		}
		return n, b[3:], true
	case c == 0xdd && len(b) >= 5:
		n := binary.BigEndian.Uint32(b[1:])
		if uint64(n) > uint64(len(b)-5) {
			return 0, b, false
		}
		return int(n), b[5:], true
	}
	return 0, b, false
}

// readInt reads an integer in any of msgpack's forms but uint64.
func readInt(b []byte) (int64, []byte, bool) {
	if len(b) == 0 {
		return 0, b, false
	}
	c := b[0]
	switch {
	case c < 0x80:
		return int64(c), b[1:], true
	case c >= 0xe0:
		return int64(int8(c)), b[1:], true
	case c == 0xcc && len(b) >= 2:
		return int64(b[1]), b[2:], true
	case c == 0xcd && len(b) >= 3:
		return int64(binary.BigEndian.Uint16(b[1:])), b[3:], true
	case c == 0xce && len(b) >= 5:
		return int64(binary.BigEndian.Uint32(b[1:])), b[5:], true
	case c == 0xd0 && len(b) >= 2:
		return int64(int8(b[1])), b[2:], true
	case c == 0xd1 && len(b) >= 3:
		return int64(int16(binary.BigEndian.Uint16(b[1:]))), b[3:], true
	case c == 0xd2 && len(b) >= 5:
		return int64(int32(binary.BigEndian.Uint32(b[1:]))), b[5:], true
	case c == 0xd3 && len(b) >= 9:
		return int64(binary.BigEndian.Uint64(b[1:])), b[9:], true
	}
	return 0, b, false
}

// readStr reads a string, or nil as an empty one; the bytes are b's.
func readStr(b []byte) ([]byte, []byte, bool) {
	if len(b) == 0 {
		return nil, b, false
	}
	var n, head int
	switch c := b[0]; {
	case c&0xe0 == 0xa0:
		n, head = int(c&0x1f), 1
	case c == 0xd9 && len(b) >= 2:
		n, head = int(b[1]), 2
	case c == 0xda && len(b) >= 3:
		n, head = int(binary.BigEndian.Uint16(b[1:])), 3
	case c == 0xdb && len(b) >= 5:
		n, head = int(binary.BigEndian.Uint32(b[1:])), 5
	case c == 0xc0:
		return nil, b[1:], true
	default:
		return nil, b, false
	}
	if n < 0 || len(b)-head < n {
		return nil, b, false
	}
	return b[head : head+n], b[head+n:], true
}
