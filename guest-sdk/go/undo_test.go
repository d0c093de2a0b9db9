package caldera

import (
	"reflect"
	"testing"
)

// A session's events are its own tentative placements: when it closes,
// the view the SDK keeps for the next session's delta is the view as it
// arrived, scalars included (scalars that arrived nil may come back empty,
// which reads the same).
func TestSessionCloseUndoesEvents(t *testing.T) {
	Register(&fuller{})
	defer Register(nil)
	view := View{
		Nodes: []Node{
			{Name: "n0", Idle: Resource{MilliCPU: 4000, Scalars: ScalarsOf(map[string]int64{"pods": 110})}},
			{Name: "n1", Idle: Resource{MilliCPU: 4000, Scalars: ScalarsOf(map[string]int64{"pods": 110})}, Pods: 2},
		},
		Jobs: []Job{{Name: "j", Phase: PodGroupPending}},
		Tasks: []Task{
			{Name: "t0", Status: Pending, Node: -1, Request: Resource{MilliCPU: 1000, Scalars: ScalarsOf(map[string]int64{"pods": 1, "nvidia.com/gpu": 1000})}},
			{Name: "t1", Status: Pending, Node: -1, Request: Resource{MilliCPU: 500}},
			{Name: "t2", Status: Running, Node: 0, Request: Resource{MilliCPU: 100}},
		},
	}
	open := request(t, nil, &OpenArgs{View: view})
	var h, fresh host
	for _, x := range []*host{&h, &fresh} {
		if code, msg, _ := decodeReply(t, x.dispatch(hookSessionOpen, open)); code != 0 {
			t.Fatalf("session_open: %d %q", code, msg)
		}
	}
	events := [][3]int32{
		{eventEnqueue, 0, -1},
		{eventAllocate, 0, 1},
		{eventBind, 0, 1},
		{eventPipeline, 1, 0},
		{eventDeallocate, 1, -1},
		{eventAllocate, 1, 1},
		{eventEvict, 2, 0},
	}
	if code, msg, _ := decodeReply(t, h.dispatch(hookNodeOrderBatch, request(t, events, &Args{Task: 1, Job: -1, Queue: -1, Nodes: []int32{1}}))); code != 0 {
		t.Fatalf("node_order_batch: %d %q", code, msg)
	}
	v := &h.session.View
	if n := v.Nodes[1]; n.Idle.MilliCPU != 2500 || n.Idle.Scalars.Get("nvidia.com/gpu") != -1000 || n.Pods != 4 || v.Jobs[0].Phase != PodGroupInqueue || v.Tasks[2].Status != Releasing {
		t.Fatalf("events were not applied: n1 %+v, job %s, t2 %s", n, v.Jobs[0].Phase, v.Tasks[2].Status)
	}
	if code, msg, _ := decodeReply(t, h.dispatch(hookSessionClose, request(t, nil, nil))); code != 0 {
		t.Fatalf("session_close: %d %q", code, msg)
	}
	want := fresh.session.View
	if !reflect.DeepEqual(nilScalars(h.last.Nodes), nilScalars(want.Nodes)) {
		t.Errorf("nodes after close:\n%+v\nwant as sent:\n%+v", h.last.Nodes, want.Nodes)
	}
	if !reflect.DeepEqual(h.last.Tasks, want.Tasks) {
		t.Errorf("tasks after close:\n%+v\nwant as sent:\n%+v", h.last.Tasks, want.Tasks)
	}
	if got := h.last.Jobs[0].Phase; got != PodGroupPending {
		t.Errorf("job phase after close %s, want Pending", got)
	}

	// A second session over the same view records afresh: its own events
	// are undone too, from the restored values.
	if code, msg, _ := decodeReply(t, h.dispatch(hookSessionOpen, open)); code != 0 {
		t.Fatalf("second session_open: %d %q", code, msg)
	}
	decodeReply(t, h.dispatch(hookNodeOrderBatch, request(t, [][3]int32{{eventAllocate, 1, 0}}, &Args{Task: 0, Job: -1, Queue: -1, Nodes: []int32{0}})))
	decodeReply(t, h.dispatch(hookSessionClose, request(t, nil, nil)))
	if !reflect.DeepEqual(nilScalars(h.last.Nodes), nilScalars(want.Nodes)) || !reflect.DeepEqual(h.last.Tasks, want.Tasks) {
		t.Errorf("second session's events were not undone:\n%+v\n%+v", h.last.Nodes, h.last.Tasks)
	}
}

// nilScalars returns copies of the nodes whose empty scalar lists are nil.
func nilScalars(nodes []Node) []Node {
	out := append([]Node(nil), nodes...)
	for i := range out {
		for _, r := range []*Resource{&out[i].Allocatable, &out[i].Idle, &out[i].Used, &out[i].Releasing, &out[i].Pipelined} {
			if len(r.Scalars) == 0 {
				r.Scalars = nil
			}
		}
	}
	return out
}
