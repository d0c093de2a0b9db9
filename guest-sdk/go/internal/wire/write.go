package wire

import "math"

// Upper bounds of encoded sizes, for the generated Msgsize methods.
const (
	NilSize          = 1
	BoolSize         = 1
	Int32Size        = 5
	Int64Size        = 9
	Float64Size      = 9
	StringPrefixSize = 5
	ArrayHeaderSize  = 5
	MapHeaderSize    = 5
)

// Require returns b with room for n more bytes.
func Require(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	grown := make([]byte, len(b), max(2*cap(b), len(b)+n))
	copy(grown, b)
	return grown
}

// AppendNil appends a nil.
func AppendNil(b []byte) []byte { return append(b, 0xc0) }

// AppendBool appends a bool.
func AppendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 0xc3)
	}
	return append(b, 0xc2)
}

// AppendMapHeader appends the header of a map of n key-value pairs.
func AppendMapHeader(b []byte, n uint32) []byte { return appendHeader(b, n, 0x80, 0xde) }

// AppendArrayHeader appends the header of an array of n elements.
func AppendArrayHeader(b []byte, n uint32) []byte { return appendHeader(b, n, 0x90, 0xdc) }

func appendHeader(b []byte, n uint32, fix, wide byte) []byte {
	switch {
	case n < 16:
		return append(b, fix|byte(n))
	case n <= math.MaxUint16:
		return be.AppendUint16(append(b, wide), uint16(n))
	}
	return be.AppendUint32(append(b, wide+1), n)
}

// AppendString appends a string in its shortest form.
func AppendString(b []byte, s string) []byte {
	if len(s) < 32 {
		return append(append(b, 0xa0|byte(len(s))), s...)
	}
	return append(appendLength(b, len(s), 0xd9), s...)
}

// appendBytes appends a binary in its shortest form.
func appendBytes(b, v []byte) []byte { return append(appendLength(b, len(v), 0xc4), v...) }

// appendLength appends the lead byte and length of a string or binary of n
// bytes in its shortest sized form: lead8 is the 8-bit form's lead byte,
// and the 16- and 32-bit forms' follow it.
func appendLength(b []byte, n int, lead8 byte) []byte {
	switch {
	case n <= math.MaxUint8:
		return append(b, lead8, byte(n))
	case n <= math.MaxUint16:
		return be.AppendUint16(append(b, lead8+1), uint16(n))
	}
	return be.AppendUint32(append(b, lead8+2), uint32(n))
}

// AppendInt64 appends an integer in its shortest signed form, as msgp
// does (a non-negative value too: the host reads either).
func AppendInt64(b []byte, v int64) []byte {
	switch {
	case v >= -32 && v <= math.MaxInt8:
		return append(b, byte(v))
	case v >= math.MinInt8 && v < 0:
		return append(b, 0xd0, byte(v))
	case v >= math.MinInt16 && v <= math.MaxInt16:
		return be.AppendUint16(append(b, 0xd1), uint16(v))
	case v >= math.MinInt32 && v <= math.MaxInt32:
		return be.AppendUint32(append(b, 0xd2), uint32(v))
	}
	return be.AppendUint64(append(b, 0xd3), uint64(v))
}

// AppendInt32 appends an int32 (see AppendInt64).
func AppendInt32(b []byte, v int32) []byte { return AppendInt64(b, int64(v)) }

// AppendInt appends an int (see AppendInt64).
func AppendInt(b []byte, v int) []byte { return AppendInt64(b, int64(v)) }

// appendUint64 appends an unsigned integer in its shortest form.
func appendUint64(b []byte, v uint64) []byte {
	switch {
	case v <= math.MaxInt8:
		return append(b, byte(v))
	case v <= math.MaxUint8:
		return append(b, 0xcc, byte(v))
	case v <= math.MaxUint16:
		return be.AppendUint16(append(b, 0xcd), uint16(v))
	case v <= math.MaxUint32:
		return be.AppendUint32(append(b, 0xce), uint32(v))
	}
	return be.AppendUint64(append(b, 0xcf), v)
}

// AppendFloat64 appends a float64.
func AppendFloat64(b []byte, v float64) []byte {
	return be.AppendUint64(append(b, 0xcb), math.Float64bits(v))
}

// AppendFloat32 appends a float32.
func AppendFloat32(b []byte, v float32) []byte {
	return be.AppendUint32(append(b, 0xca), math.Float32bits(v))
}
