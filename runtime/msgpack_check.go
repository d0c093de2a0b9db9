package runtime

import (
	"errors"
	"fmt"
	"math"
)

// maxGuestDepth bounds the nesting of msgpack a guest sends: no reply of
// the ABI nests deeper than a few levels, and the reflection decoder
// recurses once per level, with no limit of its own.
const maxGuestDepth = 32

// errMsgpack: guest msgpack the host refuses to decode by reflection.
var errMsgpack = errors.New("malformed msgpack")

// checkGuestMsgpack walks one msgpack value, without recursion or
// allocation, before the reflection decoder is let at guest bytes: that
// decoder recurses once per nesting level (a reply of 16 MiB of nested
// arrays overflows the host's stack, which kills the process) and makes
// slices and maps as large as a count claims before reading their
// elements (a five-byte array header claiming 2^32 elements is an
// allocation of hundreds of GB). So the value must nest at most
// maxGuestDepth levels, and every count and length must fit in the bytes
// that follow it. Trailing bytes are left to the decoder.
func checkGuestMsgpack(b []byte) error { return checkGuestMsgpackWithin(b, math.MaxUint64) }

// checkGuestMsgpackWithin is checkGuestMsgpack for a value of at most
// maxValues values in all, its elements and theirs included: the host
// decodes each value into some tens of bytes (a slice or string header, an
// interface), so a reply of 16 MiB of nils would cost it gigabytes where
// the module's own memory is capped at tens of megabytes.
func checkGuestMsgpackWithin(b []byte, maxValues uint64) error {
	values := uint64(0)
	var pending [maxGuestDepth + 1]uint64 // values still to read, per open level
	depth := 0
	pending[0] = 1
	pos := 0
	for {
		for depth > 0 && pending[depth] == 0 {
			depth--
		}
		if pending[depth] == 0 {
			return nil
		}
		pending[depth]--
		if pos >= len(b) {
			return fmt.Errorf("%w: truncated at byte %d", errMsgpack, pos)
		}
		skip, children, err := msgpackHeader(b[pos:])
		if err != nil {
			return fmt.Errorf("%w: byte %d: %v", errMsgpack, pos, err)
		}
		pos += skip
		rest := uint64(len(b) - pos)
		if children > 0 {
			if values += children; values > maxValues {
				return fmt.Errorf("%w: more than %d values", errMsgpack, maxValues)
			}
			if children > rest { // every value takes at least one byte
				return fmt.Errorf("%w: byte %d claims %d values, %d bytes follow", errMsgpack, pos, children, rest)
			}
			if depth == maxGuestDepth {
				return fmt.Errorf("%w: nested deeper than %d levels", errMsgpack, maxGuestDepth)
			}
			depth++
			pending[depth] = children
		}
	}
}

// msgpackHeader reads the value at the start of b: the bytes it takes
// (for strings, binaries and extensions, their payload too) and, for an
// array or a map, how many values follow it as its elements.
func msgpackHeader(b []byte) (skip int, children uint64, err error) {
	c := b[0]
	size := func(n int) (uint64, error) {
		if len(b) < 1+n {
			return 0, fmt.Errorf("truncated header")
		}
		var v uint64
		for _, x := range b[1 : 1+n] {
			v = v<<8 | uint64(x)
		}
		return v, nil
	}
	payload := func(lenBytes, extra int) (int, uint64, error) {
		n, err := size(lenBytes)
		if err != nil {
			return 0, 0, err
		}
		total := uint64(1+lenBytes+extra) + n
		if total > uint64(len(b)) {
			return 0, 0, fmt.Errorf("claims %d bytes, %d follow", n, len(b)-1-lenBytes-extra)
		}
		return int(total), 0, nil
	}
	switch {
	case c <= 0x7f || c >= 0xe0 || c == 0xc0 || c == 0xc2 || c == 0xc3: // fixint, nil, bool
		return 1, 0, nil
	case c >= 0x80 && c <= 0x8f: // fixmap
		return 1, 2 * uint64(c&0x0f), nil
	case c >= 0x90 && c <= 0x9f: // fixarray
		return 1, uint64(c & 0x0f), nil
	case c >= 0xa0 && c <= 0xbf: // fixstr
		return payload(0, int(c&0x1f))
	}
	switch c {
	case 0xc4, 0xd9: // bin 8, str 8
		return payload(1, 0)
	case 0xc5, 0xda: // bin 16, str 16
		return payload(2, 0)
	case 0xc6, 0xdb: // bin 32, str 32
		return payload(4, 0)
	case 0xc7: // ext 8
		return payload(1, 1)
	case 0xc8: // ext 16
		return payload(2, 1)
	case 0xc9: // ext 32
		return payload(4, 1)
	case 0xca, 0xce, 0xd2: // float 32, uint 32, int 32
		return fixed(b, 5)
	case 0xcb, 0xcf, 0xd3: // float 64, uint 64, int 64
		return fixed(b, 9)
	case 0xcc, 0xd0: // uint 8, int 8
		return fixed(b, 2)
	case 0xcd, 0xd1: // uint 16, int 16
		return fixed(b, 3)
	case 0xd4, 0xd5, 0xd6, 0xd7, 0xd8: // fixext 1, 2, 4, 8, 16
		return fixed(b, 2+(1<<(c-0xd4)))
	case 0xdc, 0xde: // array 16, map 16
		n, err := size(2)
		if c == 0xde {
			n *= 2
		}
		return 3, n, err
	case 0xdd, 0xdf: // array 32, map 32
		n, err := size(4)
		if c == 0xdf {
			n *= 2
		}
		return 5, n, err
	}
	return 0, 0, fmt.Errorf("unknown type byte 0x%02x", c)
}

func fixed(b []byte, n int) (int, uint64, error) {
	if len(b) < n {
		return 0, 0, fmt.Errorf("truncated value")
	}
	return n, 0, nil
}
