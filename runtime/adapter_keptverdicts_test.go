package runtime

import (
	"testing"

	"github.com/caldera-scheduler/caldera/abi"
)

// TestKeptVerdictsKeepSeveralClassesPerNode: tasks of several classes
// taking turns on a node each find their own verdict, verdicts of an
// older generation of the node give way before current ones, and past
// verdictWays classes the least recently used one goes.
func TestKeptVerdictsKeepSeveralClassesPerNode(t *testing.T) {
	var s keptVerdicts
	s.size(3)
	reject := func(r string) abi.Verdict { return abi.Verdict{Code: abi.Unschedulable, Reason: r} }
	const gen = 7
	s.put(1, 100, gen, abi.Verdict{})
	for class := uint64(1); class < verdictWays; class++ {
		s.put(1, 100+class, gen, reject("class"))
	}
	if v, ok := s.find(1, 100, gen); !ok || v.Code != abi.OK {
		t.Fatalf("plain class after %d others: %v %v, want its pass", verdictWays-1, v, ok)
	}
	if _, ok := s.find(0, 100, gen); ok {
		t.Fatal("node 0 answered with node 1's verdict")
	}
	if _, ok := s.find(1, 100, gen+1); ok {
		t.Fatal("a verdict served a newer generation of its node")
	}

	// 100 was used last, 101 least recently: a new class replaces 101.
	s.put(1, 200, gen, reject("new"))
	if _, ok := s.find(1, 101, gen); ok {
		t.Error("the least recently used class was kept past verdictWays")
	}
	for _, shape := range []uint64{100, 102, 103, 200} {
		if _, ok := s.find(1, shape, gen); !ok {
			t.Errorf("class %d lost", shape)
		}
	}

	// At a new generation, stale slots give way before current ones.
	for _, shape := range []uint64{300, 301, 302} {
		s.put(1, shape, gen+1, reject("fresh"))
	}
	s.find(1, 300, gen+1)
	s.put(1, 303, gen+1, reject("fresh"))
	for _, shape := range []uint64{300, 301, 302, 303} {
		if _, ok := s.find(1, shape, gen+1); !ok {
			t.Errorf("current verdict of %d replaced while a stale one remained", shape)
		}
	}
	// The same class again replaces its own slot.
	s.put(1, 300, gen+1, reject("again"))
	if v, ok := s.find(1, 300, gen+1); !ok || v.Reason != "again" {
		t.Errorf("class 300 reads %v %v, want its latest verdict", v, ok)
	}
	if _, ok := s.find(1, 301, gen+1); !ok {
		t.Error("re-keeping one class evicted another")
	}

	s.drop([]int32{1, 5, -1})
	if _, ok := s.find(1, 300, gen+1); ok {
		t.Error("a dropped node still answers")
	}
	s.put(9, 1, gen, abi.Verdict{}) // beyond the nodes: ignored
	if _, ok := s.find(9, 1, gen); ok {
		t.Error("a node beyond the store kept a verdict")
	}
}
