package main

import (
	"testing"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

const gi = 1 << 30

// cluster is one node of 10 cpu, 10 GiB and 100 pods; job a runs a task of
// 4 cpu and 1 GiB, job b one of 1 cpu and 5 GiB, job c waits.
func cluster(t *testing.T) (*caldera.Session, *drf) {
	t.Helper()
	v := caldera.View{
		Nodes: []caldera.Node{{Name: "n1", Allocatable: caldera.Resource{MilliCPU: 10000, Memory: 10 * gi, Scalars: caldera.ScalarsOf(map[string]int64{"pods": 100})}}},
		Jobs:  []caldera.Job{{Name: "a"}, {Name: "b"}, {Name: "c"}},
		Tasks: []caldera.Task{task(0, caldera.Running, 0, 4000, gi), task(1, caldera.Running, 0, 1000, 5*gi), task(2, caldera.Pending, -1, 1000, gi)},
	}
	s := caldera.NewSession(v, nil)
	d := &drf{}
	if err := d.OnSessionOpen(s); err != nil {
		t.Fatal(err)
	}
	return s, d
}

func TestShareIsTheLargestFraction(t *testing.T) {
	s, d := cluster(t)
	for j, want := range []float64{0.4, 0.5, 0} {
		if k := d.JobOrderKey(s, s.Job(int32(j))); len(k) != 1 || k[0] != want {
			t.Errorf("job %d key %v, want [%v]", j, k, want)
		}
	}
	// Placing c's task charges c; taking it back credits it.
	c := s.Task(2)
	c.Status, c.Node = caldera.Allocated, 0
	d.OnAllocate(s, c)
	if k := d.JobOrderKey(s, s.Job(2)); k[0] != float64(gi)/float64(10*gi) {
		t.Errorf("c's share after placing %v", k)
	}
	c.Status, c.Node = caldera.Pending, -1
	d.OnDeallocate(s, c)
	if k := d.JobOrderKey(s, s.Job(2)); k[0] != 0 {
		t.Errorf("c's share after undoing %v", k)
	}
}

func TestPreemptable(t *testing.T) {
	s, d := cluster(t)
	// c with its task would hold 0.1; a without its task holds 0, b without
	// its task 0: neither keeps a share at least c's.
	victims, voted := d.Preemptable(s, s.Task(2), []*caldera.Task{s.Task(0), s.Task(1)})
	if !voted || len(victims) != 0 {
		t.Errorf("victims %v, want none", victims)
	}
	// With a second running task a holds 0.8: c may take one of a's two
	// tasks (a keeps 0.4), not both (a would keep 0), each candidate coming
	// off a's allocation in turn.
	v := s.View
	v.Tasks = append(v.Tasks[:len(v.Tasks):len(v.Tasks)], task(0, caldera.Running, 0, 4000, gi))
	v.Jobs = []caldera.Job{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	s = caldera.NewSession(v, nil)
	if err := d.OnSessionOpen(s); err != nil {
		t.Fatal(err)
	}
	victims, _ = d.Preemptable(s, s.Task(2), []*caldera.Task{s.Task(0), s.Task(3)})
	if len(victims) != 1 || victims[0] != s.Task(0) {
		t.Errorf("victims %v, want a's first task only", victims)
	}
}
