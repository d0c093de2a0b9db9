package caldera

import (
	"fmt"
	"testing"

	"github.com/tinylib/msgp/msgp"
)

// gangish exercises the hooks beyond scoring: keys, a job check, victims,
// observers and conditions set at close.
type gangish struct {
	allocated, enqueued int
}

func (*gangish) Name() string { return "gangish" }

func (*gangish) JobOrderKey(_ *Session, j *Job) Key { return Key{-float64(j.Priority)} }

func (*gangish) JobReady(_ *Session, j *Job) bool {
	n := int32(0)
	for _, t := range j.Tasks {
		if t.Status == Allocated {
			n++
		}
	}
	return n >= j.MinAvailable
}

func (*gangish) Preemptable(_ *Session, _ *Task, candidates []*Task) ([]*Task, bool) {
	return candidates[1:], true
}

func (g *gangish) OnAllocate(*Session, *Task)   { g.allocated++ }
func (g *gangish) OnDeallocate(*Session, *Task) { g.allocated-- }
func (g *gangish) JobEnqueued(*Session, *Job)   { g.enqueued++ }

func (*gangish) OnSessionClose(s *Session) {
	s.SetCondition(&s.View.Jobs[1], "Unschedulable", "True", "NotEnoughResources", "first")
	s.SetCondition(&s.View.Jobs[1], "Unschedulable", "True", "NotEnoughResources", "1/2 tasks in gang unschedulable")
}

func TestHooksBeyondScoring(t *testing.T) {
	g := &gangish{}
	Register(g)
	defer Register(nil)
	h := &host{}
	view := View{
		Nodes: []Node{{Name: "n0", Idle: Resource{MilliCPU: 4000}}},
		Jobs:  []Job{{Name: "low", Priority: 1, MinAvailable: 1}, {Name: "high", Priority: 9, MinAvailable: 2, Phase: PodGroupPending}},
		Tasks: []Task{{Name: "a", Job: 0, Node: -1, Status: Pending}, {Name: "b", Job: 1, Node: -1, Status: Pending}, {Name: "c", Job: 1, Node: -1, Status: Pending}},
	}
	if code, msg, _ := decodeReply(t, h.dispatch(hookSessionOpen, request(t, nil, &OpenArgs{View: view}))); code != 0 {
		t.Fatalf("session_open: %d %s", code, msg)
	}
	if got := len(h.session.View.Jobs[1].Tasks); got != 2 || h.session.View.Jobs[1].Tasks[1].Name != "c" {
		t.Fatalf("job high has %d tasks indexed", got)
	}

	_, _, rest := decodeReply(t, h.dispatch(hookJobOrderKeys, request(t, nil, &Args{Task: -1, Job: -1, Queue: -1, Jobs: []int32{0, 1}})))
	var keys [][]float64
	n, rest, _ := msgp.ReadArrayHeaderBytes(rest)
	for i := uint32(0); i < n; i++ {
		var m uint32
		m, rest, _ = msgp.ReadArrayHeaderBytes(rest)
		var k []float64
		for j := uint32(0); j < m; j++ {
			var f float64
			f, rest, _ = msgp.ReadFloat64Bytes(rest)
			k = append(k, f)
		}
		keys = append(keys, k)
	}
	if len(keys) != 2 || keys[0][0] != -1 || keys[1][0] != -9 {
		t.Errorf("job keys %v, want [[-1] [-9]]", keys)
	}

	// One allocation and an admission ride on job_ready; the job is not
	// ready with one of two tasks placed.
	_, _, rest = decodeReply(t, h.dispatch(hookJobReady, request(t, [][3]int32{{eventAllocate, 1, 0}, {eventEnqueue, 1, -1}}, &Args{Task: -1, Job: 1, Queue: -1})))
	if ready, _, err := msgp.ReadBoolBytes(rest); err != nil || ready {
		t.Errorf("job_ready = %v (%v), want false", ready, err)
	}
	if g.allocated != 1 || g.enqueued != 1 || h.session.View.Jobs[1].Phase != PodGroupInqueue {
		t.Errorf("observers saw %d allocations, %d admissions; phase %s", g.allocated, g.enqueued, h.session.View.Jobs[1].Phase)
	}
	_, _, rest = decodeReply(t, h.dispatch(hookJobReady, request(t, [][3]int32{{eventAllocate, 2, 0}}, &Args{Task: -1, Job: 1, Queue: -1})))
	if ready, _, _ := msgp.ReadBoolBytes(rest); !ready {
		t.Error("job_ready = false with both tasks placed")
	}

	_, _, rest = decodeReply(t, h.dispatch(hookPreemptable, request(t, nil, &Args{Task: 0, Job: -1, Queue: -1, Tasks: []int32{1, 2}})))
	if sz, rest, _ := msgp.ReadArrayHeaderBytes(rest); sz != 2 {
		t.Errorf("victims reply has %d fields", sz)
	} else if voted, rest, _ := msgp.ReadBoolBytes(rest); !voted {
		t.Error("victims not voted")
	} else if m, rest, _ := msgp.ReadArrayHeaderBytes(rest); m != 1 {
		t.Errorf("%d victims, want 1", m)
	} else if v, _, _ := msgp.ReadInt32Bytes(rest); v != 2 {
		t.Errorf("victim handle %d, want 2", v)
	}

	// A hook the plugin lacks is refused, not crashed on.
	if code, _, _ := decodeReply(t, h.dispatch(hookOverused, request(t, nil, &Args{Task: -1, Job: -1, Queue: 0}))); code != codeUnknownHook {
		t.Errorf("overused on a plugin without it: code %d", code)
	}

	_, _, rest = decodeReply(t, h.dispatch(hookSessionClose, request(t, nil, nil)))
	var res struct {
		conditions []map[string]any
	}
	n, rest, _ = msgp.ReadMapHeaderBytes(rest)
	for i := uint32(0); i < n; i++ {
		var key string
		key, rest, _ = msgp.ReadStringBytes(rest)
		if key != "conditions" {
			t.Fatalf("close result key %q", key)
		}
		var m uint32
		m, rest, _ = msgp.ReadArrayHeaderBytes(rest)
		for j := uint32(0); j < m; j++ {
			var c map[string]any
			c, rest, _ = msgp.ReadMapStrIntfBytes(rest, nil)
			res.conditions = append(res.conditions, c)
		}
	}
	if len(res.conditions) != 1 || res.conditions[0]["message"] != "1/2 tasks in gang unschedulable" || res.conditions[0]["job"] != int64(1) {
		t.Errorf("conditions at close: %v", res.conditions)
	}
}

// promiser makes the session_open promises its fields say.
type promiser struct{ scores, pre bool }

func (*promiser) Name() string                         { return "promiser" }
func (p *promiser) ScoresNodeLocal(*Session) bool      { return p.scores }
func (p *promiser) PrePredicatesByShape(*Session) bool { return p.pre }

func TestSessionOpenSendsEachPromiseMade(t *testing.T) {
	for _, c := range []struct {
		scores, pre bool
		want        map[string]bool
	}{
		{false, false, nil},
		{true, false, map[string]bool{"nodeLocalScores": true}},
		{false, true, map[string]bool{"prePredicateByShape": true}},
		{true, true, map[string]bool{"nodeLocalScores": true, "prePredicateByShape": true}},
	} {
		Register(&promiser{scores: c.scores, pre: c.pre})
		h := &host{}
		code, msg, result := decodeReply(t, h.dispatch(hookSessionOpen, request(t, nil, &OpenArgs{})))
		Register(nil)
		if code != 0 {
			t.Fatalf("session_open: %d %s", code, msg)
		}
		if c.want == nil && !msgp.IsNil(result) {
			t.Errorf("no promise made: result %x, want nil", result)
			continue
		}
		var got map[string]bool
		if !msgp.IsNil(result) {
			n, rest, err := msgp.ReadMapHeaderBytes(result)
			if err != nil {
				t.Fatalf("result %x: %v", result, err)
			}
			got = map[string]bool{}
			for i := uint32(0); i < n; i++ {
				var k string
				var v bool
				k, rest, err = msgp.ReadStringBytes(rest)
				if err == nil {
					v, rest, err = msgp.ReadBoolBytes(rest)
				}
				if err != nil {
					t.Fatalf("result %x: %v", result, err)
				}
				got[k] = v
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("scores %v, pre %v: promised %v, want %v", c.scores, c.pre, got, c.want)
		}
	}
}
