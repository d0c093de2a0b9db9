package wire

import (
	"encoding/binary"
	"math"
	"strconv"
)

var be = binary.BigEndian

// IsNil reports whether b starts with nil.
func IsNil(b []byte) bool { return len(b) > 0 && b[0] == 0xc0 }

// ReadNilBytes reads a nil.
func ReadNilBytes(b []byte) ([]byte, error) {
	if len(b) < 1 {
		return b, ErrShortBytes
	}
	if b[0] != 0xc0 {
		return b, typeError{"nil", b[0]}
	}
	return b[1:], nil
}

// ReadBoolBytes reads a bool.
func ReadBoolBytes(b []byte) (bool, []byte, error) {
	if len(b) < 1 {
		return false, b, ErrShortBytes
	}
	switch b[0] {
	case 0xc2:
		return false, b[1:], nil
	case 0xc3:
		return true, b[1:], nil
	}
	return false, b, typeError{"bool", b[0]}
}

// ReadMapHeaderBytes reads a map's header: how many key-value pairs
// follow.
func ReadMapHeaderBytes(b []byte) (uint32, []byte, error) {
	return readHeader(b, 0x80, 0xde, "map")
}

// ReadArrayHeaderBytes reads an array's header: how many elements follow.
func ReadArrayHeaderBytes(b []byte) (uint32, []byte, error) {
	return readHeader(b, 0x90, 0xdc, "array")
}

// readHeader reads a map's or an array's header: fix is the lead byte of
// the empty fix form, wide that of the 16-bit form (the 32-bit form's is
// next). A count larger than the bytes left is a short buffer (each
// element takes one at least), not a count for a decoder to allocate.
func readHeader(b []byte, fix, wide byte, want string) (uint32, []byte, error) {
	if len(b) < 1 {
		return 0, b, ErrShortBytes
	}
	var n uint32
	var rest []byte
	switch lead := b[0]; {
	case lead&0xf0 == fix:
		n, rest = uint32(lead&0x0f), b[1:]
	case lead == wide:
		if len(b) < 3 {
			return 0, b, ErrShortBytes
		}
		n, rest = uint32(be.Uint16(b[1:])), b[3:]
	case lead == wide+1:
		if len(b) < 5 {
			return 0, b, ErrShortBytes
		}
		n, rest = be.Uint32(b[1:]), b[5:]
	default:
		return 0, b, typeError{want, lead}
	}
	if uint64(n) > uint64(len(rest)) {
		return 0, b, ErrShortBytes
	}
	return n, rest, nil
}

// ReadStringZC reads a string without copying it: the bytes returned are
// b's.
func ReadStringZC(b []byte) ([]byte, []byte, error) {
	n, head, err := stringLength(b)
	if err != nil {
		return nil, b, err
	}
	return b[head : head+n], b[head+n:], nil
}

// ReadStringBytes reads a string into a new string.
func ReadStringBytes(b []byte) (string, []byte, error) {
	v, rest, err := ReadStringZC(b)
	return string(v), rest, err
}

// ReadMapKeyZC reads a map key, a string or binary, without copying it.
func ReadMapKeyZC(b []byte) ([]byte, []byte, error) {
	if len(b) > 0 && b[0] >= 0xc4 && b[0] <= 0xc6 {
		return readBytesZC(b)
	}
	return ReadStringZC(b)
}

// stringLength returns a string's length and its header's.
func stringLength(b []byte) (n, head int, err error) {
	if len(b) < 1 {
		return 0, 0, ErrShortBytes
	}
	switch lead := b[0]; {
	case lead&0xe0 == 0xa0:
		n, head = int(lead&0x1f), 1
	case lead == 0xd9:
		n, head, err = length(b, 1)
	case lead == 0xda:
		n, head, err = length(b, 2)
	case lead == 0xdb:
		n, head, err = length(b, 4)
	default:
		return 0, 0, typeError{"str", lead}
	}
	if err == nil && len(b)-head < n {
		err = ErrShortBytes
	}
	return n, head, err
}

// readBytesZC reads a binary without copying it.
func readBytesZC(b []byte) ([]byte, []byte, error) {
	if len(b) < 1 {
		return nil, b, ErrShortBytes
	}
	var n, head int
	var err error
	switch b[0] {
	case 0xc4:
		n, head, err = length(b, 1)
	case 0xc5:
		n, head, err = length(b, 2)
	case 0xc6:
		n, head, err = length(b, 4)
	default:
		return nil, b, typeError{"bin", b[0]}
	}
	if err == nil && len(b)-head < n {
		err = ErrShortBytes
	}
	if err != nil {
		return nil, b, err
	}
	return b[head : head+n], b[head+n:], nil
}

// length reads a size of width bytes after the lead byte.
func length(b []byte, width int) (n, head int, err error) {
	if len(b) < 1+width {
		return 0, 0, ErrShortBytes
	}
	switch width {
	case 1:
		n = int(b[1])
	case 2:
		n = int(be.Uint16(b[1:]))
	default:
		n = int(be.Uint32(b[1:]))
	}
	if n < 0 { // over 2 GiB where int has 32 bits (TinyGo): cannot fit
		return 0, 0, ErrShortBytes
	}
	return n, 1 + width, nil
}

// ReadInt64Bytes reads an integer, signed or not, that fits an int64.
func ReadInt64Bytes(b []byte) (int64, []byte, error) {
	if len(b) < 1 {
		return 0, b, ErrShortBytes
	}
	lead := b[0]
	if lead <= 0x7f || lead >= 0xe0 {
		return int64(int8(lead)), b[1:], nil
	}
	var size int
	switch lead {
	case 0xcc, 0xd0:
		size = 1
	case 0xcd, 0xd1:
		size = 2
	case 0xce, 0xd2:
		size = 4
	case 0xcf, 0xd3:
		size = 8
	default:
		return 0, b, typeError{"int", lead}
	}
	if len(b) < 1+size {
		return 0, b, ErrShortBytes
	}
	p, rest := b[1:1+size], b[1+size:]
	switch lead {
	case 0xcc:
		return int64(p[0]), rest, nil
	case 0xcd:
		return int64(be.Uint16(p)), rest, nil
	case 0xce:
		return int64(be.Uint32(p)), rest, nil
	case 0xcf:
		u := be.Uint64(p)
		if u > math.MaxInt64 {
			return 0, b, overflowError{strconv.FormatUint(u, 10), 64}
		}
		return int64(u), rest, nil
	case 0xd0:
		return int64(int8(p[0])), rest, nil
	case 0xd1:
		return int64(int16(be.Uint16(p))), rest, nil
	case 0xd2:
		return int64(int32(be.Uint32(p))), rest, nil
	}
	return int64(be.Uint64(p)), rest, nil
}

// ReadInt32Bytes reads an integer that fits an int32.
func ReadInt32Bytes(b []byte) (int32, []byte, error) {
	v, rest, err := ReadInt64Bytes(b)
	if err != nil {
		return 0, b, err
	}
	if v < math.MinInt32 || v > math.MaxInt32 {
		return 0, b, overflowError{strconv.FormatInt(v, 10), 32}
	}
	return int32(v), rest, nil
}

// ReadFloat64Bytes reads a float64 or a float32.
func ReadFloat64Bytes(b []byte) (float64, []byte, error) {
	if len(b) < 1 {
		return 0, b, ErrShortBytes
	}
	switch b[0] {
	case 0xcb:
		if len(b) < 9 {
			return 0, b, ErrShortBytes
		}
		return math.Float64frombits(be.Uint64(b[1:])), b[9:], nil
	case 0xca:
		if len(b) < 5 {
			return 0, b, ErrShortBytes
		}
		return float64(math.Float32frombits(be.Uint32(b[1:]))), b[5:], nil
	}
	return 0, b, typeError{"float64", b[0]}
}

// Skip steps over one object, however deeply nested.
func Skip(b []byte) ([]byte, error) {
	for pending := 1; pending > 0; pending-- {
		size, inner, err := objectSize(b)
		if err != nil {
			return b, err
		}
		// Each object still pending takes a byte at least: counts beyond
		// what is left are a short buffer, not a long loop (nor, where int
		// has 32 bits, an overflow).
		if size > len(b) || inner < 0 || inner > len(b)-size-(pending-1) {
			return b, ErrShortBytes
		}
		b = b[size:]
		pending += inner
	}
	return b, nil
}

// objectSize returns how many bytes the object at the head of b takes
// before any elements it holds, and how many objects those are.
func objectSize(b []byte) (size, inner int, err error) {
	if len(b) < 1 {
		return 0, 0, ErrShortBytes
	}
	lead := b[0]
	switch {
	case lead <= 0x7f, lead >= 0xe0, lead == 0xc0, lead == 0xc2, lead == 0xc3:
		return 1, 0, nil
	case lead <= 0x8f:
		return 1, 2 * int(lead&0x0f), nil
	case lead <= 0x9f:
		return 1, int(lead & 0x0f), nil
	case lead <= 0xbf:
		return 1 + int(lead&0x1f), 0, nil
	}
	var n, head int
	switch lead {
	case 0xcc, 0xd0:
		return 2, 0, nil
	case 0xcd, 0xd1:
		return 3, 0, nil
	case 0xca, 0xce, 0xd2:
		return 5, 0, nil
	case 0xcb, 0xcf, 0xd3:
		return 9, 0, nil
	case 0xd4, 0xd5, 0xd6, 0xd7, 0xd8: // fixext 1, 2, 4, 8, 16
		return 2 + 1<<(lead-0xd4), 0, nil
	case 0xc4, 0xd9:
		n, head, err = length(b, 1)
	case 0xc5, 0xda:
		n, head, err = length(b, 2)
	case 0xc6, 0xdb:
		n, head, err = length(b, 4)
	case 0xc7:
		n, head, err = length(b, 1)
		head++ // the extension's type
	case 0xc8:
		n, head, err = length(b, 2)
		head++
	case 0xc9:
		n, head, err = length(b, 4)
		head++
	case 0xdc:
		n, head, err = length(b, 2)
		return head, n, err
	case 0xdd:
		n, head, err = length(b, 4)
		return head, n, err
	case 0xde:
		n, head, err = length(b, 2)
		return head, 2 * n, err
	case 0xdf:
		n, head, err = length(b, 4)
		return head, 2 * n, err
	default:
		return 0, 0, typeError{"an object", lead}
	}
	if err == nil && n > len(b)-head {
		err = ErrShortBytes
	}
	return head + n, 0, err
}
