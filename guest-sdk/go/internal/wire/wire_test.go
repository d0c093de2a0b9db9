package wire

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/tinylib/msgp/msgp"
)

// The package must write what msgp writes and read what msgp reads, for
// the generated code's sake: these tests compare the two.

var ints = []int64{0, 1, 31, 32, 127, 128, 255, 256, 32767, 32768, 65535, 65536,
	math.MaxInt32, math.MaxInt32 + 1, math.MaxInt64,
	-1, -32, -33, -128, -129, -32768, -32769, math.MinInt32, math.MinInt32 - 1, math.MinInt64}

var lengths = []int{0, 1, 15, 16, 31, 32, 255, 256, 65535, 65536}

func TestEncodersWriteMsgpsBytes(t *testing.T) {
	same := func(what string, got, want []byte) {
		t.Helper()
		if !bytes.Equal(got, want) {
			t.Errorf("%s: wrote % x, msgp writes % x", what, head(got), head(want))
		}
	}
	for _, v := range ints {
		same("int64", AppendInt64(nil, v), msgp.AppendInt64(nil, v))
		if v >= math.MinInt32 && v <= math.MaxInt32 {
			same("int32", AppendInt32(nil, int32(v)), msgp.AppendInt32(nil, int32(v)))
		}
		same("int", AppendInt(nil, int(v)), msgp.AppendInt(nil, int(v)))
		if v >= 0 {
			got, err := AppendIntf(nil, uint64(v))
			if err != nil {
				t.Fatal(err)
			}
			same("uint64", got, msgp.AppendUint64(nil, uint64(v)))
		}
	}
	for _, n := range lengths {
		s := strings.Repeat("x", n)
		same("string", AppendString(nil, s), msgp.AppendString(nil, s))
		same("bytes", appendBytes(nil, []byte(s)), msgp.AppendBytes(nil, []byte(s)))
		same("map header", AppendMapHeader(nil, uint32(n)), msgp.AppendMapHeader(nil, uint32(n)))
		same("array header", AppendArrayHeader(nil, uint32(n)), msgp.AppendArrayHeader(nil, uint32(n)))
	}
	for _, f := range []float64{0, -1.5, math.Pi, math.Inf(1), math.MaxFloat64} {
		same("float64", AppendFloat64(nil, f), msgp.AppendFloat64(nil, f))
		same("float32", AppendFloat32(nil, float32(f)), msgp.AppendFloat32(nil, float32(f)))
	}
	same("bools and nil", AppendNil(AppendBool(AppendBool(nil, true), false)), msgp.AppendNil(msgp.AppendBool(msgp.AppendBool(nil, true), false)))
	v := []any{"a", int64(-3), uint64(300), 2.5, float32(1), true, nil, []byte{1, 2}, []any{"b"}}
	got, err := AppendIntf(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	want, err := msgp.AppendIntf(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	same("any", got, want)
}

// values are objects msgp encodes, in every form the readers accept.
func values() [][]byte {
	var out [][]byte
	for _, v := range ints {
		out = append(out, msgp.AppendInt64(nil, v))
		if v >= 0 {
			out = append(out, msgp.AppendUint64(nil, uint64(v)))
		}
	}
	out = append(out, msgp.AppendUint64(nil, math.MaxUint64), msgp.AppendUint8(nil, 200), msgp.AppendUint16(nil, 60000), msgp.AppendUint32(nil, 4e9))
	for _, n := range []int{0, 5, 31, 32, 300, 70000} {
		s := strings.Repeat("y", n)
		out = append(out, msgp.AppendString(nil, s), msgp.AppendBytes(nil, []byte(s)))
	}
	out = append(out, msgp.AppendFloat64(nil, 2.25), msgp.AppendFloat32(nil, -0.5), msgp.AppendBool(nil, true), msgp.AppendNil(nil))
	nested := map[string]any{"a": []any{int64(1), "two", map[string]any{"c": 3.5, "d": nil}}, "e": true, "f": []any{}}
	b, _ := msgp.AppendIntf(nil, nested)
	out = append(out, b)
	big := make([]any, 20)
	for i := range big {
		big[i] = map[string]any{"k": int64(i), "l": "v", "m": []any{}}
	}
	b, _ = msgp.AppendIntf(nil, big)
	out = append(out, b)
	// Maps and arrays in their 16- and 32-bit forms.
	for _, n := range []int{16, 65536} {
		m := make(map[string]any, n)
		for i := range n {
			m[strconv.Itoa(i)] = nil
		}
		b, _ = msgp.AppendIntf(nil, m)
		out = append(out, b)
		b, _ = msgp.AppendIntf(nil, make([]any, n))
		out = append(out, b)
	}
	return out
}

// extensions are objects of msgpack's extension types, which the SDK
// skips but does not decode.
var extensions = [][]byte{
	{0xd4, 1, 0xaa}, {0xd5, 1, 0, 0}, {0xd6, 1, 0, 0, 0, 0}, {0xd7, 1, 0, 0, 0, 0, 0, 0, 0, 0},
	append([]byte{0xd8, 1}, make([]byte, 16)...),
	{0xc7, 3, 1, 'a', 'b', 'c'}, {0xc8, 0, 2, 1, 'a', 'b'}, {0xc9, 0, 0, 0, 1, 1, 'a'},
}

func TestExtensionsAreSkippedNotDecoded(t *testing.T) {
	for _, b := range extensions {
		trail := append(bytes.Clone(b), 0xc3)
		rest, err := Skip(trail)
		wantRest, wantErr := msgp.Skip(trail)
		if err != nil || wantErr != nil || len(rest) != len(wantRest) {
			t.Errorf("Skip(% x): %d left, %v; msgp: %d left, %v", b, len(rest), err, len(wantRest), wantErr)
		}
		if _, _, err := ReadIntfBytes(trail); err == nil || !strings.Contains(err.Error(), "found ext") {
			t.Errorf("ReadIntfBytes(% x): %v, want an extension refused", b, err)
		}
	}
}

func TestReadersReadMsgpsEncodings(t *testing.T) {
	for _, b := range values() {
		trail := append(bytes.Clone(b), 0xc3) // a next object, left alone
		want, wantRest, wantErr := msgp.ReadIntfBytes(trail)
		got, rest, err := ReadIntfBytes(trail)
		if (err != nil) != (wantErr != nil) || !reflect.DeepEqual(got, want) || !bytes.Equal(rest, wantRest) {
			t.Errorf("ReadIntfBytes(% x): %#v, %d left, %v; msgp: %#v, %d left, %v", head(b), got, len(rest), err, want, len(wantRest), wantErr)
		}
		skipped, err := Skip(trail)
		if err != nil || len(skipped) != 1 {
			t.Errorf("Skip(% x): %d left, %v; want 1 left", head(b), len(skipped), err)
		}
		for _, read := range []struct {
			name string
			ours func([]byte) (any, []byte, error)
			ref  func([]byte) (any, []byte, error)
		}{
			{"int64", func(b []byte) (any, []byte, error) { return ReadInt64Bytes(b) }, func(b []byte) (any, []byte, error) { return msgp.ReadInt64Bytes(b) }},
			{"int32", func(b []byte) (any, []byte, error) { return ReadInt32Bytes(b) }, func(b []byte) (any, []byte, error) { return msgp.ReadInt32Bytes(b) }},
			{"float64", func(b []byte) (any, []byte, error) { return ReadFloat64Bytes(b) }, func(b []byte) (any, []byte, error) { return msgp.ReadFloat64Bytes(b) }},
			{"bool", func(b []byte) (any, []byte, error) { return ReadBoolBytes(b) }, func(b []byte) (any, []byte, error) { return msgp.ReadBoolBytes(b) }},
			{"string", func(b []byte) (any, []byte, error) { return ReadStringBytes(b) }, func(b []byte) (any, []byte, error) { return msgp.ReadStringBytes(b) }},
			{"map key", func(b []byte) (any, []byte, error) { k, r, e := ReadMapKeyZC(b); return string(k), r, e }, func(b []byte) (any, []byte, error) { k, r, e := msgp.ReadMapKeyZC(b); return string(k), r, e }},
			{"map header", func(b []byte) (any, []byte, error) { return ReadMapHeaderBytes(b) }, func(b []byte) (any, []byte, error) { return msgp.ReadMapHeaderBytes(b) }},
			{"array header", func(b []byte) (any, []byte, error) { return ReadArrayHeaderBytes(b) }, func(b []byte) (any, []byte, error) { return msgp.ReadArrayHeaderBytes(b) }},
		} {
			got, rest, err := read.ours(trail)
			want, wantRest, wantErr := read.ref(trail)
			if (err != nil) != (wantErr != nil) || err == nil && (got != want || len(rest) != len(wantRest)) {
				t.Errorf("%s of % x: %v, %d left, %v; msgp: %v, %d left, %v", read.name, head(b), got, len(rest), err, want, len(wantRest), wantErr)
			}
		}
	}
}

// A buffer cut anywhere inside an object is a short buffer, never a panic
// nor a success.
func TestCutBuffersAreShort(t *testing.T) {
	for _, b := range values() {
		for n := range len(b) {
			if n > 64 && n < len(b)-64 {
				continue // the ends are where the sizes are
			}
			cut := b[:n]
			if _, err := Skip(cut); !errors.Is(err, ErrShortBytes) {
				t.Errorf("Skip(% x cut at %d of %d): %v, want a short buffer", head(b), n, len(b), err)
			}
			if _, _, err := ReadIntfBytes(cut); !errors.Is(err, ErrShortBytes) {
				t.Errorf("ReadIntfBytes(% x cut at %d of %d): %v, want a short buffer", head(b), n, len(b), err)
			}
		}
	}
}

func TestHostileSizesAreShortNotHuge(t *testing.T) {
	for _, b := range [][]byte{
		{0xdf, 0xff, 0xff, 0xff, 0xff},       // a map of 4 billion pairs
		{0xdd, 0x7f, 0xff, 0xff, 0xff, 0xc0}, // an array of 2 billion
		{0xdb, 0xff, 0xff, 0xff, 0xff, 'a'},  // a 4 GiB string
		{0x93, 0xc0, 0xc0},                   // three elements, two there
	} {
		header := ReadArrayHeaderBytes
		if b[0] == 0xdf {
			header = ReadMapHeaderBytes
		}
		if _, _, err := header(b); b[0] != 0xdb && !errors.Is(err, ErrShortBytes) {
			t.Errorf("header of % x: %v, want a short buffer", b, err)
		}
		if _, err := Skip(b); !errors.Is(err, ErrShortBytes) {
			t.Errorf("Skip(% x): %v, want a short buffer", b, err)
		}
		if _, _, err := ReadIntfBytes(b); !errors.Is(err, ErrShortBytes) {
			t.Errorf("ReadIntfBytes(% x): %v, want a short buffer", b, err)
		}
	}
	deep := append(bytes.Repeat([]byte{0x91}, 200), 0xc0)
	if _, _, err := ReadIntfBytes(deep); err == nil || !strings.Contains(err.Error(), "nested") {
		t.Errorf("200 nested arrays: %v, want the nesting refused", err)
	}
}

func TestErrorsSayWhatAndWhere(t *testing.T) {
	_, _, err := ReadInt32Bytes(AppendString(nil, "ten"))
	err = WrapError(WrapError(err, "Request"), "Tasks", 3)
	if got, want := err.Error(), "msgpack: wanted int, found str at Tasks/3/Request"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if _, _, err := ReadInt32Bytes(AppendInt64(nil, math.MaxInt32+1)); err == nil || err.Error() != "msgpack: 2147483648 overflows int32" {
		t.Errorf("an int64 read as int32: %v", err)
	}
	if WrapError(ErrShortBytes, "Tasks") != ErrShortBytes {
		t.Error("a short buffer gained a path")
	}
}

func head(b []byte) []byte { return b[:min(len(b), 12)] }
