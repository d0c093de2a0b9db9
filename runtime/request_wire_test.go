package runtime

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/caldera-scheduler/caldera/abi"
)

// Every hook's request written by hand must be the bytes reflection makes
// of it (the golden vectors pin those): with and without events, nil,
// empty and long handle lists across msgpack's short forms, negative
// handles, and scores that are not finite.
func TestRequestsMatchReflection(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for i := range 2000 {
		req := abi.Request{Events: randEvents(rng), Args: randHandleArgs(rng, i)}
		got, ok := appendRequest([]byte("reused"), req)
		if !ok {
			t.Fatalf("case %d: %T not written by hand", i, req.Args)
		}
		want, err := marshalSorted(&req)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got[len("reused"):], want) {
			t.Fatalf("case %d, %T: hand-written\n%x\nreflection\n%x\nof %+v", i, req.Args, got[len("reused"):], want, req)
		}
	}
}

// A request the hand-written encoder does not know is left to reflection,
// with the buffer as it was.
func TestOtherRequestsFallBack(t *testing.T) {
	req := abi.Request{Events: []abi.Event{{1, 2, 3}}, Args: abi.OpenArgs{}}
	got, ok := appendRequest([]byte("kept"), req)
	if ok || string(got) != "kept" {
		t.Fatalf("appendRequest(OpenArgs) = %q, %v; want the buffer untouched and false", got, ok)
	}
	body, err := EncodeRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := marshalSorted(&req)
	if !bytes.Equal(body, want) {
		t.Fatalf("EncodeRequest(OpenArgs) = %x, want %x", body, want)
	}
}

func randEvents(rng *rand.Rand) []abi.Event {
	n := []int{0, 0, 1, 3, 15, 16, 40}[rng.IntN(7)]
	if n == 0 && rng.IntN(2) == 0 {
		return []abi.Event{} // empty, omitted like nil
	}
	var es []abi.Event
	for range n {
		es = append(es, abi.Event{rng.Int32N(8), randHandle(rng), randHandle(rng)})
	}
	return es
}

func randHandle(rng *rand.Rand) int32 {
	switch rng.IntN(4) {
	case 0:
		return -1
	case 1:
		return rng.Int32()
	default:
		return rng.Int32N(300)
	}
}

func randHandles(rng *rand.Rand) []int32 {
	switch rng.IntN(6) {
	case 0:
		return nil
	case 1:
		return []int32{}
	}
	n := []int{1, 15, 16, 300, 70000}[rng.IntN(5)]
	hs := make([]int32, n)
	for i := range hs {
		hs[i] = randHandle(rng)
	}
	return hs
}

func randScores(rng *rand.Rand, n int) []float64 {
	if n == 0 && rng.IntN(2) == 0 {
		return nil
	}
	s := make([]float64, n)
	for i := range s {
		s[i] = []float64{0, -1.5, rng.Float64() * 100, math.Inf(1), math.NaN()}[rng.IntN(5)]
	}
	return s
}

// randHandleArgs cycles through every arguments type that names objects
// by handle.
func randHandleArgs(rng *rand.Rand, i int) any {
	h, hs := randHandle(rng), randHandles(rng)
	switch i % 16 {
	case 0:
		return nil
	case 1:
		return abi.TaskArgs{Task: h}
	case 2:
		return abi.JobArgs{Job: h}
	case 3:
		return abi.QueueArgs{Queue: h}
	case 4:
		return abi.QueueTaskArgs{Queue: h, Task: randHandle(rng)}
	case 5:
		return abi.QueueTasksArgs{Queue: h, Tasks: hs}
	case 6:
		return abi.CandidatesArgs{Task: h, Tasks: hs}
	case 7:
		return abi.TasksArgs{Tasks: hs}
	case 8:
		return abi.JobsArgs{Jobs: hs}
	case 9:
		return abi.QueuesArgs{Queue: h, Queues: hs}
	case 10:
		return abi.BatchArgs{Task: h, Nodes: hs, Trial: rng.IntN(2) == 0, Claims: randNodeClaims(rng, len(hs))}
	case 13:
		hn := randHandle(rng)
		return abi.BatchArgs{Task: h, Nodes: hs, JobHyperNode: &hn}
	case 14:
		return abi.HyperNodeOrderArgs{Job: h, Allocated: randHandle(rng), HyperNodes: hs}
	case 15:
		return abi.HyperNodeGradientArgs{Job: h, Within: randHandle(rng), Scope: rng.Int32N(2), Purpose: rng.Int32N(2), Allocated: randHandle(rng)}
	case 11:
		return abi.BestNodeArgs{Task: h, Nodes: hs, Scores: randScores(rng, len(hs))}
	default:
		return abi.BestNodeArgs{Task: h, Scores: randScores(rng, rng.IntN(3))}
	}
}

// randNodeClaims returns predicate_batch's claims for n nodes, nil half the
// time, with nil entries, empty and several checks.
func randNodeClaims(rng *rand.Rand, n int) []*abi.NodeClaims {
	if rng.IntN(2) == 0 {
		return nil
	}
	out := make([]*abi.NodeClaims, n)
	for i := range out {
		if rng.IntN(3) == 0 {
			continue
		}
		nc := &abi.NodeClaims{RuledOut: rng.IntN(2) == 0}
		for range rng.IntN(3) {
			c := abi.ClaimCheck{Stage: rng.Int32N(5), Code: abi.Code(2 + rng.Int32N(2))}
			for range rng.IntN(3) {
				c.Reasons = append(c.Reasons, "node(s) had volume node affinity conflict")
			}
			nc.Checks = append(nc.Checks, c)
		}
		out[i] = nc
	}
	return out
}

// BenchmarkEncodeRequest: a job_ready request after one event, by hand
// into a reused array as a lease does, and by reflection.
func BenchmarkEncodeRequest(b *testing.B) {
	req := abi.Request{Events: []abi.Event{{abi.EventAllocate, 12, 3}}, Args: abi.JobArgs{Job: 7}}
	b.Run("hand", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			buf, _ = appendRequest(buf[:0], req)
		}
	})
	b.Run("reflection", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := marshalSorted(&req); err != nil {
				b.Fatal(err)
			}
		}
	})
}
