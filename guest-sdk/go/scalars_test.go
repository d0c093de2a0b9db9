package caldera

import (
	"testing"

	"github.com/tinylib/msgp/msgp"
)

func TestScalarsKeepOrderAndAmounts(t *testing.T) {
	s := ScalarsOf(map[string]int64{"pods": 1, "nvidia.com/gpu": 2000})
	s.Add("example.com/fpga", 3)
	s.Add("pods", 4)
	s.Set("aaa", 7)
	want := Scalars{{"aaa", 7}, {"example.com/fpga", 3}, {"nvidia.com/gpu", 2000}, {"pods", 5}}
	if len(s) != len(want) {
		t.Fatalf("got %v, want %v", s, want)
	}
	for i := range want {
		if s[i] != want[i] {
			t.Fatalf("got %v, want %v", s, want)
		}
	}
	if s.Get("pods") != 5 || s.Get("absent") != 0 {
		t.Errorf("Get: pods %d, absent %d", s.Get("pods"), s.Get("absent"))
	}
	if _, ok := s.Lookup("absent"); ok {
		t.Error("Lookup found an absent dimension")
	}
}

// A placement adds and takes back a request whether or not it names the
// node's dimensions, in the same strings or in copies of them.
func TestPlacementsAddEveryDimension(t *testing.T) {
	gpu := string([]byte("nvidia.com/gpu")) // not the literal's memory
	node := Resource{MilliCPU: 8000, Scalars: Scalars{{"nvidia.com/gpu", 4000}, {"pods", 110}}}
	for _, c := range []struct {
		name    string
		request Scalars
		want    Scalars
	}{
		{"the same dimensions", Scalars{{gpu, 1000}, {"pods", 1}}, Scalars{{"nvidia.com/gpu", 3000}, {"pods", 109}}},
		{"fewer dimensions", Scalars{{"pods", 1}}, Scalars{{"nvidia.com/gpu", 4000}, {"pods", 109}}},
		{"another dimension", Scalars{{"example.com/fpga", 1}, {"pods", 1}}, Scalars{{"example.com/fpga", -1}, {"nvidia.com/gpu", 4000}, {"pods", 109}}},
	} {
		r := Resource{MilliCPU: node.MilliCPU, Scalars: append(Scalars(nil), node.Scalars...)}
		task := Resource{MilliCPU: 500, Scalars: c.request}
		sub(&r, &task)
		if r.MilliCPU != 7500 || len(r.Scalars) != len(c.want) {
			t.Fatalf("%s: after sub %+v, want scalars %v", c.name, r, c.want)
		}
		for i := range c.want {
			if r.Scalars[i] != c.want[i] {
				t.Errorf("%s: after sub %v, want %v", c.name, r.Scalars, c.want)
			}
		}
		add(&r, &task)
		for _, d := range node.Scalars {
			if r.Scalars.Get(d.Name) != d.Value {
				t.Errorf("%s: after sub and add %v, want %v back", c.name, r.Scalars, node.Scalars)
			}
		}
	}
}

func TestScalarsDecodeAnyKeyOrder(t *testing.T) {
	// Another encoder may not sort the map's keys; the decoded scalars are
	// sorted all the same.
	b := msgp.AppendMapHeader(nil, 3)
	for _, kv := range []Scalar{{"pods", 1}, {"a/x", 2}, {"m/y", 3}} {
		b = msgp.AppendString(b, kv.Name)
		b = msgp.AppendInt64(b, kv.Value)
	}
	s := Scalars{{"stale", 9}}
	rest, err := s.UnmarshalMsg(b)
	if err != nil || len(rest) != 0 {
		t.Fatalf("UnmarshalMsg: %v, %d bytes left", err, len(rest))
	}
	if len(s) != 3 || s[0].Name != "a/x" || s[1].Name != "m/y" || s[2].Name != "pods" || s.Get("pods") != 1 {
		t.Fatalf("decoded %v", s)
	}
	again, err := s.MarshalMsg(nil)
	if err != nil {
		t.Fatal(err)
	}
	var round Scalars
	if _, err := round.UnmarshalMsg(again); err != nil || len(round) != 3 || round.Get("m/y") != 3 {
		t.Fatalf("round trip: %v %v", round, err)
	}
}

func TestInternReturnsTheDecodedContent(t *testing.T) {
	// Strings sharing a slot, and a long string that is never interned,
	// each decode to their own content.
	for i := 0; i < 3*internSlots; i++ {
		raw := []byte{byte('a' + i%26), byte('a' + i/26%26), byte('a' + i/676%26)}
		got := intern(raw)
		if got != string(raw) {
			t.Fatalf("intern(%q) = %q", raw, got)
		}
	}
	long := make([]byte, internMaxLen+1)
	for i := range long {
		long[i] = 'z'
	}
	if got := intern(long); got != string(long) {
		t.Fatalf("long string: %q", got)
	}
	if got, again := intern([]byte("Pending")), intern([]byte("Pending")); got != "Pending" || again != "Pending" {
		t.Fatalf("intern(Pending) = %q, %q", got, again)
	}
}
