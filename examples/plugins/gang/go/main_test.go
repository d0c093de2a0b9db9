package main

import (
	"testing"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

func TestReadyPipelinedStarving(t *testing.T) {
	tests := []struct {
		name                      string
		statuses                  []string
		ready, pipelined, starves bool
	}{
		{"2 of minAvailable 3 running", []string{caldera.Running, caldera.Running, caldera.Pending}, false, false, true},
		{"3 of minAvailable 3 running", []string{caldera.Running, caldera.Running, caldera.Running, caldera.Pending}, true, true, false},
		{"2 running and 1 pipelined", []string{caldera.Running, caldera.Running, caldera.Pipelined}, false, true, false},
		{"allocated and succeeded count", []string{caldera.Allocated, caldera.Binding, caldera.Succeeded}, true, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := caldera.View{Jobs: []caldera.Job{{Name: "pg", MinAvailable: 3}}}
			for _, st := range tc.statuses {
				v.Tasks = append(v.Tasks, task(0, st, -1, 1000, 1<<30))
			}
			s := caldera.NewSession(v, nil)
			g := &gang{}
			if err := g.OnSessionOpen(s); err != nil {
				t.Fatal(err)
			}
			j := s.Job(0)
			if got := g.JobReady(s, j); got != tc.ready {
				t.Errorf("ready = %v, want %v", got, tc.ready)
			}
			if got := g.JobPipelined(s, j) == caldera.VotePermit; got != tc.pipelined {
				t.Errorf("pipelined = %v, want %v", got, tc.pipelined)
			}
			if got := g.JobStarving(s, j); got != tc.starves {
				t.Errorf("starving = %v, want %v", got, tc.starves)
			}
			want := 0.0
			if tc.ready {
				want = 1
			}
			if k := g.JobOrderKey(s, j); len(k) != 1 || k[0] != want {
				t.Errorf("order key %v, want [%v]", k, want)
			}
		})
	}
}

func TestJobValid(t *testing.T) {
	v := caldera.View{Jobs: []caldera.Job{
		{Name: "enough", MinAvailable: 2},
		{Name: "short", MinAvailable: 3},
		{Name: "role", MinAvailable: 2, MinTaskMember: map[string]int32{"worker": 2}},
	}}
	v.Tasks = append(v.Tasks, task(0, caldera.Running, 0, 1, 1), task(0, caldera.Pending, -1, 1, 1),
		task(1, caldera.Pending, -1, 1, 1), task(1, caldera.Failed, -1, 1, 1),
		task(2, caldera.Pending, -1, 1, 1), task(2, caldera.Pending, -1, 1, 1))
	v.Tasks[4].Role, v.Tasks[5].Role = "worker", "ps"
	s := caldera.NewSession(v, nil)
	g := &gang{}
	if r := g.JobValid(s, s.Job(0)); r != nil {
		t.Errorf("enough: %+v", r)
	}
	if r := g.JobValid(s, s.Job(1)); r == nil || r.Reason != "NotEnoughTasks" || r.Message != "Not enough valid tasks for gang-scheduling, valid: 1, min: 3" {
		t.Errorf("short: %+v", r)
	}
	if r := g.JobValid(s, s.Job(2)); r == nil || r.Reason != "NotEnoughPodsOfTask" {
		t.Errorf("role: %+v", r)
	}
}

func TestVictimsKeepMinAvailable(t *testing.T) {
	v := caldera.View{Jobs: []caldera.Job{{Name: "a", MinAvailable: 2}, {Name: "b", MinAvailable: 1}}}
	for range 3 {
		v.Tasks = append(v.Tasks, task(0, caldera.Running, 0, 1, 1))
	}
	v.Tasks = append(v.Tasks, task(1, caldera.Running, 0, 1, 1))
	s := caldera.NewSession(v, nil)
	g := &gang{}
	if err := g.OnSessionOpen(s); err != nil {
		t.Fatal(err)
	}
	all := []*caldera.Task{s.Task(0), s.Task(3), s.Task(1), s.Task(2)}
	for range 2 { // the counts start afresh on every call
		victims, voted := g.Reclaimable(s, nil, all)
		if !voted || len(victims) != 1 || victims[0] != s.Task(0) {
			t.Fatalf("victims %v, want only the first task of a", victims)
		}
	}
}

func TestSessionCloseMessage(t *testing.T) {
	v := caldera.View{Jobs: []caldera.Job{{Name: "pg", MinAvailable: 3}}}
	v.Tasks = append(v.Tasks, task(0, caldera.Running, 0, 1, 1), task(0, caldera.Pending, -1, 1, 1), task(0, caldera.Pending, -1, 1, 1))
	s := caldera.NewSession(v, nil)
	g := &gang{}
	if err := g.OnSessionOpen(s); err != nil {
		t.Fatal(err)
	}
	// A statement allocated task 1, then was discarded.
	t1 := s.Task(1)
	t1.Status = caldera.Allocated
	g.OnAllocate(s, t1)
	t1.Status = caldera.Pending
	g.OnDeallocate(s, t1)
	j := s.Job(0)
	if n := g.schedulableTaskNum(j); n != 2 {
		t.Errorf("schedulable %d, want 2", n)
	}
	if got, want := g.fitError(j), "pod group is not ready, 1 Running, 2 Pending, 3 minAvailable; Pending: 1 Schedulable, 1 Unschedulable"; got != want {
		t.Errorf("fit error %q, want %q", got, want)
	}
}

func TestShortOnlyByReleasing(t *testing.T) {
	v := caldera.View{Jobs: []caldera.Job{{Name: "pg", MinAvailable: 2}}}
	v.Tasks = append(v.Tasks, task(0, caldera.Running, 0, 1, 1), task(0, caldera.Releasing, 0, 1, 1))
	s := caldera.NewSession(v, nil)
	if !shortOnlyByReleasing(s.Job(0)) {
		t.Error("a job short only by a releasing pod is flagged")
	}
	s.Task(1).Node = -1
	if shortOnlyByReleasing(s.Job(0)) {
		t.Error("a releasing pod on no node still counts")
	}
}
