package caldera

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/tinylib/msgp/msgp"
)

// TestArgsMatchGenerated feeds the hand-written argument reader and msgp's
// generated Args decoder the same requests: every number form msgpack
// allows for a handle or a score, keys in any order, absent, unknown and
// ill-typed keys, the whole request and one truncation in eight. Both start
// from the same earlier arguments (absent fields keep them, lists reuse
// their arrays) and must give the same arguments, or both an error.
func TestArgsMatchGenerated(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	for c := 0; c < 2000; c++ {
		req := randomArgs(rng)
		for cut := len(req); cut >= 0; cut-- {
			if cut < len(req) && rng.Intn(8) != 0 {
				continue // every truncation would make this slow; one in eight
			}
			b := req[:cut]
			byHand, generated := earlierArgs(), earlierArgs()
			restHand, errHand := readArgs(&byHand, b)
			restGen, errGen := generated.UnmarshalMsg(b)
			if (errHand == nil) != (errGen == nil) {
				t.Fatalf("request %x: by hand %v, generated %v", b, errHand, errGen)
			}
			if errHand != nil {
				continue
			}
			if len(restHand) != len(restGen) {
				t.Fatalf("request %x: %d bytes left by hand, %d generated", b, len(restHand), len(restGen))
			}
			if got, want := argsString(byHand), argsString(generated); got != want {
				t.Fatalf("request %x:\nby hand   %s\ngenerated %s", b, got, want)
			}
		}
	}
}

// earlierArgs are what a previous call left: lists longer than most that
// the requests bring.
func earlierArgs() Args {
	return Args{Task: 7, Job: 8, Queue: 9, Nodes: []int32{1, 2, 3, 4, 5, 6, 7, 8}, Tasks: []int32{9},
		Jobs: make([]int32, 0, 16), Scores: []float64{1, 2, 3, 4, 5, 6, 7}}
}

func TestArgsRefuseACountLongerThanTheRequest(t *testing.T) {
	for _, key := range []string{"nodes", "scores"} {
		b := msgp.AppendMapHeader(nil, 1)
		b = msgp.AppendString(b, key)
		b = append(b, 0xdd, 0xff, 0xff, 0xff, 0xff, 0x01)
		var a Args
		if _, err := readArgs(&a, b); err == nil {
			t.Errorf("%s: a count of 4 G elements over 1 byte was read", key)
		}
	}
}

// argsString prints a for comparison; an empty list prints as nil would,
// since the SDK reads only its length.
func argsString(a Args) string {
	orNil := func(n int) string {
		if n == 0 {
			return "[]"
		}
		return ""
	}
	return fmt.Sprintf("%d %d %d %v%s %v%s %v%s %v%s %v%s", a.Task, a.Job, a.Queue,
		a.Nodes, orNil(len(a.Nodes)), a.Tasks, orNil(len(a.Tasks)), a.Jobs, orNil(len(a.Jobs)),
		a.Queues, orNil(len(a.Queues)), fmt.Sprintf("%#v", a.Scores), orNil(len(a.Scores)))
}

func randomArgs(rng *rand.Rand) []byte {
	type field struct {
		key    string
		encode func([]byte) []byte
	}
	handles := func(b []byte) []byte {
		n := rng.Intn(6)
		if rng.Intn(10) == 0 {
			n = 300
		}
		b = msgp.AppendArrayHeader(b, uint32(n))
		for i := 0; i < n; i++ {
			b = appendAnyInt(rng, b, randomHandle(rng))
		}
		return b
	}
	scores := func(b []byte) []byte {
		n := rng.Intn(6)
		b = msgp.AppendArrayHeader(b, uint32(n))
		for i := 0; i < n; i++ {
			switch rng.Intn(4) {
			case 0:
				b = msgp.AppendFloat32(b, float32(rng.NormFloat64()*100))
			case 1:
				b = appendAnyInt(rng, b, randomHandle(rng))
			default:
				b = msgp.AppendFloat64(b, []float64{rng.NormFloat64() * 1e6, 0, math.Inf(-1), math.NaN()}[rng.Intn(4)])
			}
		}
		return b
	}
	one := func(b []byte) []byte { return appendAnyInt(rng, b, randomHandle(rng)) }
	fields := []field{
		{"task", one}, {"job", one}, {"queue", one},
		{"nodes", handles}, {"tasks", handles}, {"jobs", handles}, {"queues", handles},
		{"scores", scores},
		{"unknown", func(b []byte) []byte { return msgp.AppendMapStrStr(b, map[string]string{"a": "b"}) }},
		{"nodes", func(b []byte) []byte { return msgp.AppendString(b, "not a list") }},
		{"task", func(b []byte) []byte { return msgp.AppendNil(b) }},
	}
	// The last two fields are wrong in type; three requests in four leave
	// them out, so that most requests decode.
	if rng.Intn(4) != 0 {
		fields = fields[:len(fields)-2]
	}
	rng.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
	keep := fields[:rng.Intn(len(fields)+1)]
	b := msgp.AppendMapHeader(nil, uint32(len(keep)))
	for _, f := range keep {
		b = f.encode(msgp.AppendString(b, f.key))
	}
	return b
}

// randomHandle is mostly a handle, now and then a number no handle can be.
func randomHandle(rng *rand.Rand) int64 {
	switch rng.Intn(2000) {
	case 0:
		return -rng.Int63n(1 << 40)
	case 1:
		return rng.Int63()
	default:
		return rng.Int63n([]int64{128, 256, 65536, 1 << 31}[rng.Intn(4)])
	}
}

// appendAnyInt writes v in any msgpack form that can hold it, not only the
// shortest.
func appendAnyInt(rng *rand.Rand, b []byte, v int64) []byte {
	var forms []func([]byte) []byte
	add := func(ok bool, f func([]byte) []byte) {
		if ok {
			forms = append(forms, f)
		}
	}
	be := func(prefix byte, n int, u uint64) func([]byte) []byte {
		return func(b []byte) []byte {
			var e [9]byte
			e[0] = prefix
			binary.BigEndian.PutUint64(e[1:], u)
			return append(append(b, prefix), e[9-n:]...)
		}
	}
	add(v >= 0 && v < 128, func(b []byte) []byte { return append(b, byte(v)) })
	add(v >= -32 && v < 0, func(b []byte) []byte { return append(b, byte(int8(v))) })
	add(v >= 0 && v <= math.MaxUint8, be(0xcc, 1, uint64(v)))
	add(v >= 0 && v <= math.MaxUint16, be(0xcd, 2, uint64(v)))
	add(v >= 0 && v <= math.MaxUint32, be(0xce, 4, uint64(v)))
	add(v >= 0, be(0xcf, 8, uint64(v)))
	add(v >= math.MinInt8 && v <= math.MaxInt8, be(0xd0, 1, uint64(v)))
	add(v >= math.MinInt16 && v <= math.MaxInt16, be(0xd1, 2, uint64(v)))
	add(v >= math.MinInt32 && v <= math.MaxInt32, be(0xd2, 4, uint64(v)))
	add(true, be(0xd3, 8, uint64(v)))
	return forms[rng.Intn(len(forms))](b)
}

func TestAppendFloatsWritesWhatMsgpWrites(t *testing.T) {
	rng := rand.New(rand.NewSource(12))
	for _, n := range []int{0, 1, 2, 15, 16, 17, 1000} {
		fs := make([]float64, n)
		for i := range fs {
			fs[i] = rng.NormFloat64() * 1e3
		}
		// A prefix already in the buffer, and a buffer with and without room.
		for _, spare := range []int{0, 9*n + 8} {
			prefix := append(make([]byte, 0, 3+spare), 0x93, 0x00, 0xa0)
			got := appendFloats(prefix, fs)
			want := msgp.AppendArrayHeader([]byte{0x93, 0x00, 0xa0}, uint32(n))
			for _, f := range fs {
				want = msgp.AppendFloat64(want, f)
			}
			if string(got) != string(want) {
				t.Fatalf("%d scores, %d spare: got %x, want %x", n, spare, got, want)
			}
		}
	}
}
