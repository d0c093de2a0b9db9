// Command hostile is a test module built with the Go SDK that implements
// every hook and misbehaves in the ones its arguments name:
//
//	hostile.hook: a hook name (session_open, job_order_keys, ...) or "all"
//	hostile.mode: trap | loop | grow | huge | escape
//	hostile.dial:     the address escape tries to connect to
//	hostile.object:   as an event handler, misbehave only on the events of
//	                  objects of this name
//	hostile.minNodes: misbehave only in sessions with at least this many
//	                  nodes (so that the scheduler's two-node self-test at
//	                  load passes and the misbehaviour meets a real session)
//
// trap panics, loop never returns, grow allocates until the memory limit,
// huge answers with a reply far over the host's limit (order keys, scores
// and victims; other hooks trap), and escape tries to read a host file and
// reach the network, then reports what it got as an error. Where it does
// not misbehave it gives every hook's neutral answer, so a session that
// survives it decides as if it were not configured.
package main

import (
	"errors"
	"fmt"
	"net"
	"os"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

func main() {}

func init() { caldera.Register(&hostile{}) }

type hostile struct {
	hook, mode string
	dial       string
	active     bool
	hoard      [][]byte
}

func (*hostile) Name() string { return "hostile" }

// arguments survive a failed session_open: the SDK decoded them before
// calling OnSessionOpen.
func (h *hostile) read(s *caldera.Session) {
	h.hook, _ = s.Arguments["hostile.hook"].(string)
	h.mode, _ = s.Arguments["hostile.mode"].(string)
	h.dial, _ = s.Arguments["hostile.dial"].(string)
	min, err := s.Int("hostile.minNodes", 0)
	h.active = err == nil && int64(len(s.View.Nodes)) >= min
}

// misbehave acts out the configured mode when hook is the configured one.
// It returns true when the hook should answer hugely.
func (h *hostile) misbehave(hook string) bool {
	if !h.active || (h.hook != hook && h.hook != "all") {
		return false
	}
	switch h.mode {
	case "trap":
		panic("hostile: trap in " + hook)
	case "loop":
		for {
		}
	case "grow":
		for {
			h.hoard = append(h.hoard, make([]byte, 4<<20))
		}
	case "escape":
		panic("hostile: " + escape(h.dial))
	case "huge":
		return true
	case "log":
		// Not hostile: the SDK's Log, for the test that it reaches the
		// scheduler's log as one line with its level.
		caldera.Log(caldera.LevelWarning, "hostile: a line from "+hook)
	case "println":
		// Go's runtime writes this in five pieces.
		println("hostile: println from", hook, 42)
		print("hostile: unfinished")
	}
	return false
}

// escape tries what the sandbox must refuse and says what happened.
func escape(addr string) string {
	msg := ""
	if b, err := os.ReadFile("/etc/hostname"); err == nil {
		msg += fmt.Sprintf("read /etc/hostname (%d bytes); ", len(b))
	} else {
		msg += "file refused: " + err.Error() + "; "
	}
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		msg += "connected to " + addr
	} else {
		msg += "network refused: " + errors.Unwrap(err).Error()
	}
	return msg
}

// hugeKey encodes to about 22 MB, over the host's 16 MiB reply limit.
func hugeKey() caldera.Key { return make(caldera.Key, 5<<19) }

func (h *hostile) OnSessionOpen(s *caldera.Session) error {
	h.read(s)
	if h.misbehave("session_open") {
		panic("hostile: no huge session_open")
	}
	return nil
}

func (h *hostile) OnSessionClose(*caldera.Session) {
	if h.misbehave("session_close") {
		panic("hostile: no huge session_close")
	}
}

// key answers hugely for the first object of a list only: one huge key is
// enough, and a huge key per object would exhaust memory before the reply
// was made.
func (h *hostile) key(hook string, handle int32) caldera.Key {
	if handle == 0 && h.misbehave(hook) {
		return hugeKey()
	}
	return nil
}

func (h *hostile) JobOrderKey(_ *caldera.Session, j *caldera.Job) caldera.Key {
	return h.key("job_order_keys", j.Handle)
}

func (h *hostile) TaskOrderKey(_ *caldera.Session, t *caldera.Task) caldera.Key {
	return h.key("task_order_keys", t.Handle)
}

func (h *hostile) QueueOrderKey(_ *caldera.Session, q *caldera.Queue) caldera.Key {
	return h.key("queue_order_keys", q.Handle)
}

func (h *hostile) VictimQueueOrderKey(_ *caldera.Session, q, _ *caldera.Queue) caldera.Key {
	return h.key("victim_queue_order_keys", q.Handle)
}

func (h *hostile) PrePredicate(*caldera.Session, *caldera.Task) caldera.Verdict {
	h.plain("pre_predicate")
	return caldera.Pass
}

func (h *hostile) PredicateBatch(*caldera.Session, *caldera.Task, []*caldera.Node, []caldera.Verdict) {
	h.plain("predicate_batch")
}

func (h *hostile) NodeOrderBatch(_ *caldera.Session, _ *caldera.Task, _ []*caldera.Node, scores []float64) error {
	if h.misbehave("node_order_batch") {
		return errors.New(string(make([]byte, 20<<20)))
	}
	return nil
}

func (h *hostile) BestNode(*caldera.Session, *caldera.Task, []*caldera.Node, []float64) *caldera.Node {
	h.plain("best_node")
	return nil
}

func (h *hostile) victims(hook string, candidates []*caldera.Task) ([]*caldera.Task, bool) {
	if h.misbehave(hook) {
		huge := make([]*caldera.Task, 0, 5<<20)
		for len(huge) < cap(huge) {
			huge = append(huge, candidates...)
		}
		return huge, true
	}
	return nil, false
}

func (h *hostile) Preemptable(_ *caldera.Session, _ *caldera.Task, c []*caldera.Task) ([]*caldera.Task, bool) {
	return h.victims("preemptable", c)
}

func (h *hostile) Reclaimable(_ *caldera.Session, _ *caldera.Task, c []*caldera.Task) ([]*caldera.Task, bool) {
	return h.victims("reclaimable", c)
}

// plain misbehaves in a hook that has no huge answer: huge traps there.
func (h *hostile) plain(hook string) {
	if h.misbehave(hook) {
		panic("hostile: no huge " + hook)
	}
}

func (h *hostile) Overused(*caldera.Session, *caldera.Queue) bool {
	h.plain("overused")
	return false
}

func (h *hostile) Allocatable(*caldera.Session, *caldera.Queue, *caldera.Task) bool {
	h.plain("allocatable")
	return true
}

func (h *hostile) Preemptive(*caldera.Session, *caldera.Queue, []*caldera.Task) bool {
	h.plain("preemptive")
	return true
}

func (h *hostile) JobReady(*caldera.Session, *caldera.Job) bool {
	h.plain("job_ready")
	return true
}

func (h *hostile) JobPipelined(*caldera.Session, *caldera.Job) caldera.Vote {
	h.plain("job_pipelined")
	return caldera.VoteAbstain
}

func (h *hostile) JobValid(*caldera.Session, *caldera.Job) *caldera.ValidateResult {
	h.plain("job_valid")
	return nil
}

func (h *hostile) JobEnqueueable(*caldera.Session, *caldera.Job) caldera.Vote {
	h.plain("job_enqueueable")
	return caldera.VoteAbstain
}

func (h *hostile) JobStarving(*caldera.Session, *caldera.Job) bool {
	h.plain("job_starving")
	return true
}

func (h *hostile) VictimTasks(*caldera.Session, []*caldera.Task) []*caldera.Task {
	h.plain("victim_tasks")
	return nil
}

func (h *hostile) TargetJob(*caldera.Session, []*caldera.Job) *caldera.Job {
	h.plain("target_job")
	return nil
}

// OnCacheEvent misbehaves as the handler's arguments say (hostile.hook
// cache_event or all; hostile.object, if set, limits it to the events of
// objects of that name); mode "drop" drops every event and "badadjust"
// answers an adjustment the kind does not take. Otherwise it passes.
func (h *hostile) OnCacheEvent(ev *caldera.CacheEvent) caldera.EventVerdict {
	h.hook, _ = ev.Arguments["hostile.hook"].(string)
	h.mode, _ = ev.Arguments["hostile.mode"].(string)
	only, _ := ev.Arguments["hostile.object"].(string)
	obj := ev.New
	if obj == nil {
		obj = ev.Old
	}
	h.active = true
	switch {
	case h.hook != "cache_event" && h.hook != "all":
	case only != "" && (obj == nil || obj.Name != only):
	case h.mode == "drop":
		return caldera.DropEvent()
	case h.mode == "badadjust":
		if ev.Kind == "Node" {
			p := int32(7)
			return caldera.EventVerdict{Action: caldera.EventAdjust, Priority: &p}
		}
		return caldera.AdjustAllocatable(caldera.Resource{MilliCPU: 1})
	case h.misbehave("cache_event"):
		panic("hostile: no huge cache_event")
	}
	return caldera.PassEvent()
}
