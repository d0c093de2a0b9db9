package runtime

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/caldera-scheduler/caldera/abi"
)

// Verdicts and scores read by hand must be what reflection reads from the
// same reply, whatever msgpack forms the guest chose, into a fresh or a
// reused slice; a form the hand path does not take falls back to the
// same answer, truncated and malformed replies included.
func TestResultsMatchReflection(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 17))
	for i := range 6000 {
		var result []byte
		var fresh func() any
		switch i % 4 {
		case 0:
			result, fresh = randVerdictsWire(rng), func() any { return new([]abi.Verdict) }
		case 1:
			result, fresh = randFloatsWire(rng), func() any { return new([]float64) }
		case 2:
			result, fresh = randKeysWire(rng), func() any { return new([]abi.Key) }
		default:
			result, fresh = randValidateWire(rng), func() any {
				return &abi.ValidateResult{Pass: true, Reason: "stale", Message: "stale"}
			}
		}
		if i%7 == 0 && len(result) > 1 {
			result = result[:rng.IntN(len(result))] // truncated
		}
		if i%11 == 0 {
			result = append(result, 0xc0) // a trailing byte
		}
		raw := append([]byte{0x93, 0x00, 0xa0}, result...)
		for _, reused := range []bool{false, true} {
			hand, slow := fresh(), fresh()
			if reused && reflect.ValueOf(hand).Elem().Kind() == reflect.Slice { // a slice with room and stale elements, as the adapter reuses
				reflect.ValueOf(hand).Elem().Set(reflect.MakeSlice(reflect.ValueOf(hand).Elem().Type(), 3, 300))
				reflect.ValueOf(slow).Elem().Set(reflect.MakeSlice(reflect.ValueOf(slow).Elem().Type(), 3, 300))
			}
			hc, hm, herr := DecodeReply(raw, hand)
			sc, sm, serr := decodeReplyReflect(raw, slow)
			// %#v tells nil from empty, and NaN from NaN as DeepEqual does not.
			if hc != sc || hm != sm || (herr == nil) != (serr == nil) || (herr == nil && fmt.Sprintf("%#v", hand) != fmt.Sprintf("%#v", slow)) {
				t.Fatalf("case %d (reused %v), %x:\nhand %d %q %v %v\nreflection %d %q %v %v", i, reused, result, hc, hm, herr, reflect.ValueOf(hand).Elem(), sc, sm, serr, reflect.ValueOf(slow).Elem())
			}
		}
	}
}

// BenchmarkDecodeVerdicts: a predicate_batch reply for 256 nodes, most of
// them refused for one reason.
func BenchmarkDecodeVerdicts(b *testing.B) {
	raw := []byte{0x93, 0x00, 0xa0, 0xdc, 0x01, 0x00}
	for i := range 256 {
		if i%4 == 0 {
			raw = append(raw, 0x92, 0x00, 0xc0)
		} else {
			raw = append(raw, 0x92, 0x02)
			raw = appendStr(raw, "Insufficient cpu")
		}
	}
	var out []abi.Verdict
	b.Run("hand", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			out = out[:0]
			if _, _, err := DecodeReply(raw, &out); err != nil || len(out) != 256 {
				b.Fatal(err, len(out))
			}
		}
	})
	b.Run("reflection", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			out = out[:0]
			if _, _, err := decodeReplyReflect(raw, &out); err != nil || len(out) != 256 {
				b.Fatal(err, len(out))
			}
		}
	})
}

func randArrayHeader(rng *rand.Rand, b []byte, n int) []byte {
	switch {
	case n < 16 && rng.IntN(3) > 0:
		return append(b, 0x90|byte(n))
	case rng.IntN(2) == 0:
		return binary.BigEndian.AppendUint16(append(b, 0xdc), uint16(n))
	default:
		return binary.BigEndian.AppendUint32(append(b, 0xdd), uint32(n))
	}
}

func randIntWire(rng *rand.Rand, b []byte, v int64) []byte {
	switch f := rng.IntN(6); {
	case f == 0 && v >= 0 && v < 128:
		return append(b, byte(v))
	case f == 1 && v >= -32 && v < 0:
		return append(b, byte(int8(v)))
	case f == 2 && v >= 0 && v < 256:
		return append(b, 0xcc, byte(v))
	case f == 3 && v >= math.MinInt16 && v <= math.MaxInt16:
		return binary.BigEndian.AppendUint16(append(b, 0xd1), uint16(v))
	case f == 4 && v >= 0 && v <= math.MaxUint32:
		return binary.BigEndian.AppendUint32(append(b, 0xce), uint32(v))
	default:
		return binary.BigEndian.AppendUint64(append(b, 0xd3), uint64(v))
	}
}

func randVerdictsWire(rng *rand.Rand) []byte {
	if rng.IntN(20) == 0 {
		return []byte{0xc0}
	}
	n := []int{0, 1, 5, 16, 256}[rng.IntN(5)]
	b := randArrayHeader(rng, nil, n)
	reasons := []string{"", "Insufficient cpu", "node(s) had untolerated taint", strings.Repeat("r", 40), strings.Repeat("s", 300)}
	for range n {
		if rng.IntN(200) == 0 {
			b = append(b, 0x93, 0x01, 0xa0, 0xc0) // three fields: reflection decides
			continue
		}
		b = append(b, 0x92)
		code := []int64{0, 1, 2, 3, -1, 70000, math.MaxInt32 + 1}[rng.IntN(7)]
		b = randIntWire(rng, b, code)
		r := reasons[rng.IntN(len(reasons))]
		if r == "" && rng.IntN(2) == 0 {
			b = append(b, 0xc0)
		} else {
			b = appendStr(b, r)
		}
	}
	return b
}

func randFloatsWire(rng *rand.Rand) []byte {
	if rng.IntN(20) == 0 {
		return []byte{0xc0}
	}
	return appendRandFloats(rng, nil, []int{0, 1, 15, 16, 256}[rng.IntN(5)])
}

// randValidateWire is a job_valid reply: some of its three fields, in any
// order, sometimes nil, sometimes of the wrong type or with a key nobody
// knows.
func randValidateWire(rng *rand.Rand) []byte {
	if rng.IntN(20) == 0 {
		return []byte{0xc0}
	}
	keys := []string{"pass", "reason", "message"}
	rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	keys = keys[:rng.IntN(4)]
	if rng.IntN(30) == 0 {
		keys = append(keys, "extra")
	}
	b := append([]byte(nil), 0x80|byte(len(keys)))
	for _, k := range keys {
		b = appendStr(b, k)
		switch r := rng.IntN(12); {
		case r == 0:
			b = append(b, 0xc0)
		case r == 1:
			b = append(b, 0x07) // a number where neither a bool nor a string is
		case k == "pass":
			b = appendBool(b, rng.IntN(2) == 0)
		default:
			b = appendStr(b, []string{"", "NotEnoughPods", strings.Repeat("m", 40)}[rng.IntN(3)])
		}
	}
	return b
}

// randKeysWire is an order-key reply: a list of keys of a few numbers
// each, some nil.
func randKeysWire(rng *rand.Rand) []byte {
	if rng.IntN(20) == 0 {
		return []byte{0xc0}
	}
	n := []int{0, 1, 15, 16, 200}[rng.IntN(5)]
	b := randArrayHeader(rng, nil, n)
	for range n {
		if rng.IntN(30) == 0 {
			b = append(b, 0xc0)
			continue
		}
		b = appendRandFloats(rng, b, rng.IntN(4))
	}
	return b
}

func appendRandFloats(rng *rand.Rand, b []byte, n int) []byte {
	b = randArrayHeader(rng, b, n)
	for range n {
		v := []float64{0, 100, -3.25, 1e300, math.Inf(-1)}[rng.IntN(5)]
		switch rng.IntN(4) {
		case 0:
			b = binary.BigEndian.AppendUint32(append(b, 0xca), math.Float32bits(float32(v)))
		case 1:
			b = randIntWire(rng, b, int64(rng.IntN(200)-100))
		case 2:
			if rng.IntN(50) == 0 {
				b = append(b, 0xa1, 'x') // not a number: reflection decides
				continue
			}
			fallthrough
		default:
			b = binary.BigEndian.AppendUint64(append(b, 0xcb), math.Float64bits(v))
		}
	}
	return b
}
