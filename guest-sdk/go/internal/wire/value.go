package wire

import "errors"

// maxDepth bounds the nesting ReadIntfBytes follows, so that a hostile
// buffer cannot exhaust the stack.
const maxDepth = 100

var errTooDeep = errors.New("msgpack: objects nested over 100 deep")

// ReadIntfBytes reads any object into the Go value msgp would make of it:
// nil, bool, int64, uint64, float32, float64, string, []byte, []any, or
// map[string]any (keys may be strings or binaries). An extension is an
// error: the host sends none.
func ReadIntfBytes(b []byte) (any, []byte, error) { return readIntf(b, 0) }

// ReadMapStrIntfBytes reads a map with string keys into old, emptied
// first, or into a new map if old is nil.
func ReadMapStrIntfBytes(b []byte, old map[string]any) (map[string]any, []byte, error) {
	clear(old)
	return readMap(b, old, 0)
}

func readIntf(b []byte, depth int) (any, []byte, error) {
	if depth > maxDepth {
		return nil, b, errTooDeep
	}
	if len(b) < 1 {
		return nil, b, ErrShortBytes
	}
	switch lead := b[0]; {
	case lead == 0xc0:
		return nil, b[1:], nil
	case lead == 0xc2, lead == 0xc3:
		return ReadBoolBytes(b)
	case lead >= 0xcc && lead <= 0xcf:
		return readUint64(b)
	case lead <= 0x7f, lead >= 0xe0, lead >= 0xd0 && lead <= 0xd3:
		return ReadInt64Bytes(b)
	case lead == 0xca:
		v, rest, err := ReadFloat64Bytes(b)
		return float32(v), rest, err
	case lead == 0xcb:
		return ReadFloat64Bytes(b)
	case lead&0xe0 == 0xa0, lead >= 0xd9 && lead <= 0xdb:
		return ReadStringBytes(b)
	case lead >= 0xc4 && lead <= 0xc6:
		v, rest, err := readBytesZC(b)
		return append([]byte(nil), v...), rest, err
	case lead&0xf0 == 0x80, lead == 0xde, lead == 0xdf:
		return readMap(b, nil, depth)
	case lead&0xf0 == 0x90, lead == 0xdc, lead == 0xdd:
		n, rest, err := ReadArrayHeaderBytes(b)
		if err != nil {
			return nil, b, err
		}
		out := make([]any, n)
		for i := range out {
			if out[i], rest, err = readIntf(rest, depth+1); err != nil {
				return nil, b, WrapError(err, i)
			}
		}
		return out, rest, nil
	}
	return nil, b, typeError{"a value the SDK decodes (not an extension)", b[0]}
}

func readMap(b []byte, out map[string]any, depth int) (map[string]any, []byte, error) {
	n, rest, err := ReadMapHeaderBytes(b)
	if err != nil {
		return nil, b, err
	}
	if out == nil {
		out = make(map[string]any, n)
	}
	for ; n > 0; n-- {
		var key []byte
		if key, rest, err = ReadMapKeyZC(rest); err != nil {
			return nil, b, err
		}
		var v any
		if v, rest, err = readIntf(rest, depth+1); err != nil {
			return nil, b, WrapError(err, string(key))
		}
		out[string(key)] = v
	}
	return out, rest, nil
}

// readUint64 reads an unsigned integer.
func readUint64(b []byte) (any, []byte, error) {
	if b[0] == 0xcf {
		if len(b) < 9 {
			return nil, b, ErrShortBytes
		}
		return be.Uint64(b[1:]), b[9:], nil
	}
	v, rest, err := ReadInt64Bytes(b) // 8, 16 or 32 bits: fits
	return uint64(v), rest, err
}

// AppendIntf appends a value of one of the types ReadIntfBytes makes,
// any other integer or float type, map[string]string or []string.
func AppendIntf(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return AppendNil(b), nil
	case bool:
		return AppendBool(b, v), nil
	case string:
		return AppendString(b, v), nil
	case []byte:
		return appendBytes(b, v), nil
	case int:
		return AppendInt64(b, int64(v)), nil
	case int8:
		return AppendInt64(b, int64(v)), nil
	case int16:
		return AppendInt64(b, int64(v)), nil
	case int32:
		return AppendInt64(b, int64(v)), nil
	case int64:
		return AppendInt64(b, v), nil
	case uint:
		return appendUint64(b, uint64(v)), nil
	case uint8:
		return appendUint64(b, uint64(v)), nil
	case uint16:
		return appendUint64(b, uint64(v)), nil
	case uint32:
		return appendUint64(b, uint64(v)), nil
	case uint64:
		return appendUint64(b, v), nil
	case float32:
		return AppendFloat32(b, v), nil
	case float64:
		return AppendFloat64(b, v), nil
	case []string:
		b = AppendArrayHeader(b, uint32(len(v)))
		for _, s := range v {
			b = AppendString(b, s)
		}
		return b, nil
	case []any:
		b = AppendArrayHeader(b, uint32(len(v)))
		for i, e := range v {
			var err error
			if b, err = AppendIntf(b, e); err != nil {
				return b, WrapError(err, i)
			}
		}
		return b, nil
	case map[string]string:
		b = AppendMapHeader(b, uint32(len(v)))
		for k, s := range v {
			b = AppendString(AppendString(b, k), s)
		}
		return b, nil
	case map[string]any:
		b = AppendMapHeader(b, uint32(len(v)))
		for k, e := range v {
			var err error
			if b, err = AppendIntf(AppendString(b, k), e); err != nil {
				return b, WrapError(err, k)
			}
		}
		return b, nil
	}
	return b, errors.New("msgpack: the SDK encodes nil, bool, numbers, strings, []byte, []any, []string, map[string]any and map[string]string, not this type")
}

// GuessSize bounds the encoded size of a value AppendIntf encodes.
func GuessSize(v any) int {
	switch v := v.(type) {
	case nil, bool:
		return 1
	case string:
		return StringPrefixSize + len(v)
	case []byte:
		return StringPrefixSize + len(v)
	case []string:
		n := ArrayHeaderSize
		for _, s := range v {
			n += StringPrefixSize + len(s)
		}
		return n
	case []any:
		n := ArrayHeaderSize
		for _, e := range v {
			n += GuessSize(e)
		}
		return n
	case map[string]string:
		n := MapHeaderSize
		for k, s := range v {
			n += 2*StringPrefixSize + len(k) + len(s)
		}
		return n
	case map[string]any:
		n := MapHeaderSize
		for k, e := range v {
			n += StringPrefixSize + len(k) + GuessSize(e)
		}
		return n
	}
	return Int64Size // every number
}
