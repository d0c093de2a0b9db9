package main

import (
	"math"
	"testing"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

const gi = 1 << 30

var node8 = caldera.Node{Name: "n1", Allocatable: caldera.Resource{MilliCPU: 8000, Memory: 8 * gi, Scalars: caldera.ScalarsOf(map[string]int64{"pods": 110})}}

// tasks returns n tasks of job, each of 1 cpu and 1 GiB.
func tasks(job int32, n int, status string, node int32) []caldera.Task {
	var out []caldera.Task
	for range n {
		out = append(out, task(job, status, node, 1000, gi))
	}
	return out
}

func open(t *testing.T, v caldera.View) (*caldera.Session, *proportion) {
	t.Helper()
	s := caldera.NewSession(v, nil)
	p := &proportion{}
	if err := p.OnSessionOpen(s); err != nil {
		t.Fatal(err)
	}
	return s, p
}

func TestDeserved(t *testing.T) {
	jobs := []caldera.Job{{Name: "pg1", Queue: 0, Phase: caldera.PodGroupInqueue}, {Name: "pg2", Queue: 1, Phase: caldera.PodGroupInqueue}}
	both := append(tasks(0, 8, caldera.Pending, -1), tasks(1, 8, caldera.Pending, -1)...)
	tests := []struct {
		name         string
		q1, q2       caldera.Queue
		tasks        []caldera.Task
		want1, want2 float64 // deserved milli-cpu
	}{
		{"weights 1:3 split the cluster 2:6", caldera.Queue{Name: "q1", Weight: 1}, caldera.Queue{Name: "q2", Weight: 3}, both, 2000, 6000},
		{"what a capability caps goes to the other queue",
			caldera.Queue{Name: "q1", Weight: 1, Capability: caldera.Resource{MilliCPU: 2000}}, caldera.Queue{Name: "q2", Weight: 1}, both, 2000, 6000},
		{"a guarantee is deserved whatever the weight",
			caldera.Queue{Name: "q1", Weight: 1, Guarantee: caldera.Resource{MilliCPU: 4000}}, caldera.Queue{Name: "q2", Weight: 3}, both, 4000, 4000},
		{"a queue deserves no more than it asks for", caldera.Queue{Name: "q1", Weight: 1}, caldera.Queue{Name: "q2", Weight: 1},
			append(tasks(0, 1, caldera.Pending, -1), tasks(1, 8, caldera.Pending, -1)...), 1000, 7000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, p := open(t, caldera.View{Nodes: []caldera.Node{node8}, Queues: []caldera.Queue{tc.q1, tc.q2},
				Jobs: append([]caldera.Job(nil), jobs...), Tasks: tc.tasks})
			if got := p.queues[0].deserved.milliCPU; math.Abs(got-tc.want1) > 1e-6 {
				t.Errorf("q1 deserves %v milli-cpu, want %v", got, tc.want1)
			}
			if got := p.queues[1].deserved.milliCPU; math.Abs(got-tc.want2) > 1e-6 {
				t.Errorf("q2 deserves %v milli-cpu, want %v", got, tc.want2)
			}
		})
	}
}

// busy: q1 (weight 1) runs six 1-cpu tasks and q2 (weight 1) waits with
// eight: each deserves 4 cpu, so q1 is over its share.
func busy(t *testing.T, q2State string) (*caldera.Session, *proportion) {
	return open(t, caldera.View{
		Nodes:  []caldera.Node{node8},
		Queues: []caldera.Queue{{Name: "q1", Weight: 1}, {Name: "q2", Weight: 1, State: q2State}},
		Jobs:   []caldera.Job{{Name: "pg1", Queue: 0, Phase: caldera.PodGroupRunning, MinAvailable: 1}, {Name: "pg2", Queue: 1, Phase: caldera.PodGroupInqueue, MinAvailable: 1}},
		Tasks:  append(tasks(0, 6, caldera.Running, 0), tasks(1, 8, caldera.Pending, -1)...),
	})
}

func TestOverusedAndAllocatable(t *testing.T) {
	s, p := busy(t, "Open")
	q1, q2 := s.Queue(0), s.Queue(1)
	waiting := s.Task(6)
	if !p.Overused(s, q1) || p.Overused(s, q2) {
		t.Errorf("overused q1 %v q2 %v, want true false", p.Overused(s, q1), p.Overused(s, q2))
	}
	if !p.Allocatable(s, q2, waiting) || p.Allocatable(s, q1, waiting) {
		t.Error("q2 should take a task and q1 not")
	}
	// q2 takes four tasks, then no more; it is still not overused, as it
	// deserves a pod slot for each of its 8 tasks and holds 4.
	for i := int32(6); i < 10; i++ {
		tk := s.Task(i)
		tk.Status, tk.Node = caldera.Allocated, 0
		p.OnAllocate(s, tk)
	}
	if p.Allocatable(s, q2, s.Task(10)) || p.Overused(s, q2) {
		t.Error("q2 at its deserved cpu still takes tasks, or is overused with pod slots to spare")
	}
	if k := p.QueueOrderKey(s, q2); len(k) != 2 || k[1] != 1 {
		t.Errorf("q2 key %v, want share 1", k)
	}
	if !p.Preemptive(s, q1, nil) || p.Preemptive(s, q1, []*caldera.Task{s.Task(10)}) {
		t.Error("preemptive: q1 may take nothing more")
	}
}

func TestClosedQueueTakesNothing(t *testing.T) {
	s, p := busy(t, "Closed")
	if p.Allocatable(s, s.Queue(1), s.Task(6)) || p.JobEnqueueable(s, s.Job(1)) != caldera.VoteReject {
		t.Error("a closed queue takes a task or a job")
	}
}

func TestReclaimTakesOnlyTheOverShare(t *testing.T) {
	s, p := busy(t, "Open")
	var candidates []*caldera.Task
	for i := int32(0); i < 6; i++ {
		candidates = append(candidates, s.Task(i))
	}
	for range 2 { // what a queue still holds starts afresh on every call
		victims, voted := p.Reclaimable(s, s.Task(6), candidates)
		if !voted || len(victims) != 2 {
			t.Fatalf("%d victims, want the 2 tasks beyond q1's 4 cpu", len(victims))
		}
	}
}

func TestEnqueue(t *testing.T) {
	v := caldera.View{
		Nodes:  []caldera.Node{node8},
		Queues: []caldera.Queue{{Name: "q1", Weight: 1, Capability: caldera.Resource{MilliCPU: 4000}}},
		Jobs: []caldera.Job{
			{Name: "admitted", Queue: 0, Phase: caldera.PodGroupInqueue, MinResources: caldera.Resource{MilliCPU: 2000}},
			{Name: "fits", Queue: 0, Phase: caldera.PodGroupPending, MinResources: caldera.Resource{MilliCPU: 2000}},
			{Name: "no minimum", Queue: 0, Phase: caldera.PodGroupPending},
			{Name: "no queue", Queue: -1, Phase: caldera.PodGroupPending},
		},
		Tasks: tasks(0, 1, caldera.Pending, -1),
	}
	s, p := open(t, v)
	if got := p.JobEnqueueable(s, s.Job(1)); got != caldera.VotePermit {
		t.Errorf("fits: %d", got)
	}
	p.JobEnqueued(s, s.Job(1))
	if got := p.JobEnqueueable(s, s.Job(1)); got != caldera.VoteReject {
		t.Errorf("fits again once admitted: %d, want reject", got)
	}
	if got := p.JobEnqueueable(s, s.Job(2)); got != caldera.VotePermit {
		t.Errorf("no minimum: %d", got)
	}
	if got := p.JobEnqueueable(s, s.Job(3)); got != caldera.VoteAbstain {
		t.Errorf("no queue: %d", got)
	}
}

// Admission is asked once per pending job per session: it allocates
// nothing whether or not the job's minResources has scalars, in a queue that
// holds none. (A job without scalars in a queue that holds some still
// allocates: need's list is nil then, as the scheduler's map would be.)
func TestJobEnqueueableAllocatesNothing(t *testing.T) {
	gpus := caldera.ScalarsOf(map[string]int64{"nvidia.com/gpu": 1000})
	v := caldera.View{
		Nodes:  []caldera.Node{node8},
		Queues: []caldera.Queue{{Name: "q1", Weight: 1}},
		Jobs: []caldera.Job{
			{Name: "gpu", Queue: 0, Phase: caldera.PodGroupPending, MinResources: caldera.Resource{MilliCPU: 2000, Scalars: gpus}},
			{Name: "cpu", Queue: 0, Phase: caldera.PodGroupPending, MinResources: caldera.Resource{MilliCPU: 2000}},
		},
		Tasks: tasks(0, 1, caldera.Pending, -1),
	}
	s, p := open(t, v)
	for _, j := range []int32{0, 1} {
		if allocs := testing.AllocsPerRun(10, func() { p.JobEnqueueable(s, s.Job(j)) }); allocs != 0 {
			t.Errorf("job %s: JobEnqueueable allocated %.0f times", s.Job(j).Name, allocs)
		}
	}
}

// Opening a session costs allocations per queue, not per job.
func TestReopeningAllocatesNothingPerJob(t *testing.T) {
	gpus := caldera.ScalarsOf(map[string]int64{"nvidia.com/gpu": 1000})
	v := caldera.View{Nodes: []caldera.Node{node8}, Queues: []caldera.Queue{{Name: "q1", Weight: 1}}}
	for j := range 200 {
		phase := caldera.PodGroupInqueue
		if j%2 == 0 {
			phase = caldera.PodGroupRunning
		}
		v.Jobs = append(v.Jobs, caldera.Job{Queue: 0, Phase: phase, MinAvailable: 1, MinResources: caldera.Resource{MilliCPU: 2000, Memory: gi, Scalars: gpus}})
		v.Tasks = append(v.Tasks, task(int32(j), caldera.Running, 0, 1000, gi), task(int32(j), caldera.Pending, -1, 1000, gi))
	}
	s, p := open(t, v)
	allocs := testing.AllocsPerRun(5, func() {
		if err := p.OnSessionOpen(s); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 30 {
		t.Errorf("reopening a session of %d jobs allocated %.0f times", len(v.Jobs), allocs)
	}
}
