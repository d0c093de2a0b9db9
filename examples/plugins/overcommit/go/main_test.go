package main

import (
	"testing"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

func TestFactorArgument(t *testing.T) {
	tests := []struct {
		arg  any
		want float64
		err  bool
	}{
		{nil, 1.2, false},
		{1.5, 1.5, false},
		{int64(2), 2, false},
		{"3", 3, false},
		{0.5, 1.2, false}, // below 1: the default
		{"lots", 0, true},
	}
	for _, tc := range tests {
		s := caldera.NewSession(caldera.View{}, nil)
		if tc.arg != nil {
			s.Arguments[factorArgument] = tc.arg
		}
		o := &overcommit{}
		err := o.OnSessionOpen(s)
		if (err != nil) != tc.err || (!tc.err && o.factor != tc.want) {
			t.Errorf("%v: factor %v, error %v; want %v", tc.arg, o.factor, err, tc.want)
		}
	}
}

// A node of 10 cpu with 6 in use and factor 1.2 leaves 6 cpu of room; an
// Inqueue job claims 2 of it.
func TestJobEnqueueable(t *testing.T) {
	v := caldera.View{
		Nodes: []caldera.Node{{Name: "n1", Allocatable: caldera.Resource{MilliCPU: 10000}, Used: caldera.Resource{MilliCPU: 6000}}},
		Jobs: []caldera.Job{
			{Name: "admitted", Phase: caldera.PodGroupInqueue, MinResources: caldera.Resource{MilliCPU: 2000}},
			{Name: "fits", Phase: caldera.PodGroupPending, MinResources: caldera.Resource{MilliCPU: 4000}},
			{Name: "too big", Phase: caldera.PodGroupPending, MinResources: caldera.Resource{MilliCPU: 4001}},
			{Name: "no minimum", Phase: caldera.PodGroupPending},
		},
	}
	s := caldera.NewSession(v, nil)
	o := &overcommit{}
	if err := o.OnSessionOpen(s); err != nil {
		t.Fatal(err)
	}
	for j, want := range []caldera.Vote{caldera.VotePermit, caldera.VotePermit, caldera.VoteReject, caldera.VotePermit} {
		if got := o.JobEnqueueable(s, s.Job(int32(j))); got != want {
			t.Errorf("%s: vote %d, want %d", s.Job(int32(j)).Name, got, want)
		}
	}
	// Once "fits" is admitted nothing of its size fits any more.
	o.JobEnqueued(s, s.Job(1))
	if got := o.JobEnqueueable(s, s.Job(1)); got != caldera.VoteReject {
		t.Errorf("after admitting fits: vote %d, want reject", got)
	}
}

func TestRunningJobClaimsWhatItLacks(t *testing.T) {
	v := caldera.View{
		Nodes: []caldera.Node{{Name: "n1", Allocatable: caldera.Resource{MilliCPU: 10000}}},
		Jobs: []caldera.Job{{Name: "running", Phase: caldera.PodGroupRunning, MinAvailable: 1,
			MinResources: caldera.Resource{MilliCPU: 3000, Scalars: caldera.ScalarsOf(map[string]int64{"nvidia.com/gpu": 2000, "count/pods": 4})}}},
		Tasks: []caldera.Task{task(0, caldera.Running, 0, 1000, 0)},
	}
	s := caldera.NewSession(v, nil)
	o := &overcommit{}
	if err := o.OnSessionOpen(s); err != nil {
		t.Fatal(err)
	}
	if o.inqueue.milliCPU != 2000 || o.inqueue.scalars.value("nvidia.com/gpu") != 2000 || len(o.inqueue.scalars) != 1 {
		t.Errorf("inqueue %+v, want 2 cpu and 2 gpu", o.inqueue)
	}
}
