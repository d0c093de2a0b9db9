package interrupt

import (
	"errors"
	"fmt"
)

// reader walks a Wasm binary. Every read checks bounds: the input is an
// untrusted module, and a bad one must give an error, never a panic.
type reader struct {
	b   []byte
	pos int
}

var errTruncated = errors.New("unexpected end of module")

func (r *reader) done() bool { return r.pos >= len(r.b) }

func (r *reader) byte() (byte, error) {
	if r.pos >= len(r.b) {
		return 0, errTruncated
	}
	c := r.b[r.pos]
	r.pos++
	return c, nil
}

func (r *reader) bytes(n int) ([]byte, error) {
	if n < 0 || n > len(r.b)-r.pos {
		return nil, errTruncated
	}
	s := r.b[r.pos : r.pos+n]
	r.pos += n
	return s, nil
}

// u32 reads an unsigned LEB128 of at most 32 bits.
func (r *reader) u32() (uint32, error) {
	var v uint32
	for shift := 0; shift < 35; shift += 7 {
		c, err := r.byte()
		if err != nil {
			return 0, err
		}
		v |= uint32(c&0x7f) << shift
		if c&0x80 == 0 {
			return v, nil
		}
	}
	return 0, fmt.Errorf("LEB128 at offset %d is longer than 5 bytes", r.pos)
}

// s32 reads a signed LEB128 of at most 32 bits.
func (r *reader) s32() (int32, error) {
	var v int64
	for shift := 0; shift < 35; shift += 7 {
		c, err := r.byte()
		if err != nil {
			return 0, err
		}
		v |= int64(c&0x7f) << shift
		if c&0x80 == 0 {
			if shift < 28 && c&0x40 != 0 {
				v -= 1 << (shift + 7) // sign-extend
			}
			return int32(v), nil
		}
	}
	return 0, fmt.Errorf("LEB128 at offset %d is longer than 5 bytes", r.pos)
}

// skipLEB skips a LEB128 of either sign and up to 64 bits: the walker
// needs the length of an immediate, not its value.
func (r *reader) skipLEB() error {
	for i := 0; i < 10; i++ {
		c, err := r.byte()
		if err != nil {
			return err
		}
		if c&0x80 == 0 {
			return nil
		}
	}
	return fmt.Errorf("LEB128 at offset %d is longer than 10 bytes", r.pos)
}

// vec reads a length-prefixed byte string (names, custom section names).
func (r *reader) vec() ([]byte, error) {
	n, err := r.u32()
	if err != nil {
		return nil, err
	}
	return r.bytes(int(n))
}

func appendU32(b []byte, v uint32) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

func appendS32(b []byte, v int32) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
