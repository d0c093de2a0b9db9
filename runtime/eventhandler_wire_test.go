package runtime

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/caldera-scheduler/caldera/abi"
)

// The hand-written cache_event encoding must be byte for byte what
// EncodeRequest makes of the same events, for every shape an object can
// take: each field present or not, strings and collections across the
// size limits of msgpack's short forms, negative numbers.
func TestEventRequestMatchesEncodeRequest(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	cases := [][]abi.CacheEvent{nil, {}, goldenCacheEvent().Events}
	for range 300 {
		events := make([]abi.CacheEvent, rng.IntN(20))
		for i := range events {
			events[i] = abi.CacheEvent{Type: randString(rng), Kind: randString(rng), Old: randObject(rng), New: randObject(rng)}
		}
		cases = append(cases, events)
	}
	cases = append(cases, make([]abi.CacheEvent, 70000)) // an array of 32-bit length
	argsCases := []map[string]any{nil, {}, {"weight": 10, "ratio": 1.5, "on": true, "nested": map[string]any{"b": "x", "a": []any{1, "y"}}}}
	for i, events := range cases {
		for _, args := range argsCases {
			want, err := EncodeRequest(abi.Request{Args: abi.CacheEventArgs{Events: events, Arguments: args}})
			if err != nil {
				t.Fatal(err)
			}
			var encodedArgs []byte
			if len(args) > 0 {
				if encodedArgs, err = encodeArguments(args); err != nil {
					t.Fatal(err)
				}
			}
			got := appendCacheEventRequest([]byte("reused"), events, encodedArgs)
			if !bytes.Equal(got[len("reused"):], want) {
				t.Fatalf("case %d (%d events, arguments %v): hand-written\n%x\nEncodeRequest\n%x", i, len(events), args, got[len("reused"):], want)
			}
		}
	}
}

// randString is empty, short, or long enough for each wider string form.
func randString(rng *rand.Rand) string {
	switch rng.IntN(8) {
	case 0:
		return ""
	case 1:
		return strings.Repeat("s", 32+rng.IntN(224)) // str8
	case 2:
		return strings.Repeat("m", 256+rng.IntN(300)) // str16
	case 3:
		if rng.IntN(20) == 0 {
			return strings.Repeat("l", 1<<16+rng.IntN(10)) // str32
		}
	}
	return fmt.Sprintf("v%d", rng.IntN(1000))
}

func randMap(rng *rand.Rand) map[string]string {
	switch rng.IntN(4) {
	case 0:
		return nil
	case 1:
		return map[string]string{}
	}
	m := map[string]string{}
	for range rng.IntN(40) { // past 15: a map of 16-bit length
		m[fmt.Sprintf("k%d", rng.IntN(100))] = randString(rng)
	}
	return m
}

func randResource(rng *rand.Rand) *abi.Resource {
	if rng.IntN(3) == 0 {
		return nil
	}
	r := &abi.Resource{MilliCPU: rng.Int64() - rng.Int64(), Memory: rng.Int64N(1 << 40)}
	if rng.IntN(2) == 0 {
		r.Scalars = map[string]int64{}
		for range rng.IntN(5) {
			r.Scalars[fmt.Sprintf("example.com/r%d", rng.IntN(9))] = rng.Int64N(1000) - 10
		}
	}
	return r
}

func randInt32Ptr(rng *rand.Rand) *int32 {
	if rng.IntN(2) == 0 {
		return nil
	}
	v := rng.Int32() - rng.Int32()
	return &v
}

func randObject(rng *rand.Rand) *abi.Object {
	if rng.IntN(5) == 0 {
		return nil
	}
	o := &abi.Object{
		Name: randString(rng), Namespace: randString(rng), UID: randString(rng),
		Labels: randMap(rng), Annotations: randMap(rng),
		Allocatable: randResource(rng), Unschedulable: rng.IntN(2) == 0,
		Requests: randResource(rng), Priority: randInt32Ptr(rng),
		NodeName: randString(rng), Phase: randString(rng), SchedulerName: randString(rng), Group: randString(rng),
		Queue: randString(rng), PriorityClassName: randString(rng), State: randString(rng),
		Value: randInt32Ptr(rng), Reserved: randResource(rng),
	}
	if rng.IntN(2) == 0 {
		o.MinMember = rng.Int32N(5) - 1
		o.Weight = rng.Int32N(5) - 1
	}
	for range rng.IntN(3) * rng.IntN(10) {
		o.Taints = append(o.Taints, abi.Taint{Key: randString(rng), Value: randString(rng), Effect: randString(rng)})
	}
	if rng.IntN(10) == 0 {
		o.Taints = []abi.Taint{}
	}
	return o
}

// BenchmarkEventRequest encodes one full batch of node adds (512 nodes,
// each with labels, an annotation and allocatable with a scalar), by hand
// and with the reflection-based EncodeRequest.
func BenchmarkEventRequest(b *testing.B) {
	events := make([]abi.CacheEvent, maxEventBatch)
	for i := range events {
		events[i] = abi.CacheEvent{Type: abi.EventAdd, Kind: "Node", New: &abi.Object{
			Name:        fmt.Sprintf("node-%05d", i),
			Labels:      map[string]string{"kubernetes.io/hostname": fmt.Sprintf("node-%05d", i), "zone": "a"},
			Annotations: map[string]string{"caldera.sh/external-reserved": "cpu=2,memory=4Gi"},
			Allocatable: &abi.Resource{MilliCPU: 32000, Memory: 256 << 30, Scalars: map[string]int64{"pods": 110000}},
		}}
	}
	b.Run("by-hand", func(b *testing.B) {
		var buf []byte
		for b.Loop() {
			buf = appendCacheEventRequest(buf[:0], events, nil)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(events)), "ns/event")
	})
	b.Run("EncodeRequest", func(b *testing.B) {
		for b.Loop() {
			if _, err := EncodeRequest(abi.Request{Args: abi.CacheEventArgs{Events: events}}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(events)), "ns/event")
	})
}
