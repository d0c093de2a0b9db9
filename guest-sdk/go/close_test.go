package caldera

import "testing"

// counter observes placements; closer also closes sessions, and records
// what its OnSessionClose saw.
type counter struct{ allocated int }

func (*counter) Name() string                   { return "counter" }
func (c *counter) OnAllocate(*Session, *Task)   { c.allocated++ }
func (c *counter) OnDeallocate(*Session, *Task) {}
func (*counter) JobReady(*Session, *Job) bool   { return true }

type closer struct {
	counter
	status string
}

func (c *closer) OnSessionClose(s *Session) { c.status = s.View.Tasks[0].Status }

// The events that come with session_close reach a plugin only when it has
// an OnSessionClose to see them; both keep working the next session.
func TestCloseEventsReachOnlyASessionCloser(t *testing.T) {
	view := View{
		Nodes: []Node{{Name: "n0", Idle: Resource{MilliCPU: 4000}}},
		Jobs:  []Job{{Name: "j"}},
		Tasks: []Task{{Name: "t0", Status: Pending, Node: -1, Request: Resource{MilliCPU: 1000}}},
	}
	placed := [][3]int32{{eventAllocate, 0, 0}}
	for _, c := range []struct {
		plugin      Plugin
		wantAtClose int
	}{
		{&counter{}, 0},
		{&closer{}, 1},
	} {
		Register(c.plugin)
		var h host
		for session := 0; session < 2; session++ {
			if code, msg, _ := decodeReply(t, h.dispatch(hookSessionOpen, request(t, nil, &OpenArgs{View: view}))); code != 0 {
				t.Fatalf("session_open: %d %q", code, msg)
			}
			if code, msg, _ := decodeReply(t, h.dispatch(hookSessionClose, request(t, placed, nil))); code != 0 {
				t.Fatalf("session_close: %d %q", code, msg)
			}
		}
		var got int
		switch p := c.plugin.(type) {
		case *counter:
			got = p.allocated
		case *closer:
			got = p.allocated / 2
			if p.status != Allocated {
				t.Errorf("OnSessionClose saw task status %q, want %q", p.status, Allocated)
			}
		}
		if got != c.wantAtClose {
			t.Errorf("%T: OnAllocate ran %d times a session for the placement sent with session_close, want %d", c.plugin, got, c.wantAtClose)
		}
	}
	Register(nil)
}
