package caldera

import (
	"reflect"
	"testing"

	"github.com/tinylib/msgp/msgp"
)

// fuller scores a node by how much of its cpu is in use, so that the test
// sees whether forwarded events reached the view.
type fuller struct{ opened, closed int }

func (*fuller) Name() string { return "fuller" }

func (f *fuller) OnSessionOpen(*Session) error { f.opened++; return nil }

func (f *fuller) OnSessionClose(*Session) { f.closed++ }

func (*fuller) NodeOrderBatch(_ *Session, _ *Task, nodes []*Node, scores []float64) error {
	for i, n := range nodes {
		scores[i] = float64(n.Used.MilliCPU)
	}
	return nil
}

// request encodes {e: events, a: args} as the host does.
func request(t *testing.T, events [][3]int32, args msgp.Marshaler) []byte {
	t.Helper()
	b := msgp.AppendMapHeader(nil, 2)
	b = msgp.AppendString(b, "e")
	b = msgp.AppendArrayHeader(b, uint32(len(events)))
	for _, e := range events {
		b = msgp.AppendArrayHeader(b, 3)
		for _, v := range e {
			b = msgp.AppendInt32(b, v)
		}
	}
	b = msgp.AppendString(b, "a")
	if args == nil {
		return msgp.AppendNil(b)
	}
	if a, ok := args.(*Args); ok {
		// The hypernode handles of ABI 1.9 that a test leaves at zero mean
		// none, as the scheduler says by -1 (or leaves out).
		c := *a
		for _, h := range []*int32{&c.JobHyperNode, &c.Allocated, &c.Within} {
			if *h == 0 {
				*h = -1
			}
		}
		args = &c
	}
	b, err := args.MarshalMsg(b)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// decodeReply returns the code, the message and the remaining result bytes.
func decodeReply(t *testing.T, b []byte) (int32, string, []byte) {
	t.Helper()
	n, b, err := msgp.ReadArrayHeaderBytes(b)
	if err != nil || n != 3 {
		t.Fatalf("reply is not a 3-array: %v", err)
	}
	code, b, err := msgp.ReadInt32Bytes(b)
	if err != nil {
		t.Fatal(err)
	}
	msg, b, err := msgp.ReadStringBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	return code, msg, b
}

func TestSessionEventsAndBatchScores(t *testing.T) {
	f := &fuller{}
	Register(f)
	defer Register(nil)
	var h host
	view := View{
		Nodes: []Node{{Name: "n0", Allocatable: Resource{MilliCPU: 4000}, Idle: Resource{MilliCPU: 4000}},
			{Name: "n1", Allocatable: Resource{MilliCPU: 4000}, Idle: Resource{MilliCPU: 4000}}},
		Jobs:  []Job{{Name: "j"}},
		Tasks: []Task{{Name: "t0", Status: Pending, Node: -1, Request: Resource{MilliCPU: 1000, Scalars: ScalarsOf(map[string]int64{"pods": 1})}}, {Name: "t1", Status: Pending, Node: -1, Request: Resource{MilliCPU: 500}}},
	}
	if code, msg, _ := decodeReply(t, h.dispatch(hookSessionOpen, request(t, nil, &OpenArgs{View: view}))); code != 0 || f.opened != 1 {
		t.Fatalf("session_open: %d %q, opened %d", code, msg, f.opened)
	}
	// t0 was allocated on n1 since the last call; the scores see it.
	code, msg, rest := decodeReply(t, h.dispatch(hookNodeOrderBatch, request(t, [][3]int32{{eventAllocate, 0, 1}}, &Args{Task: 1, Job: -1, Queue: -1, Nodes: []int32{0, 1}})))
	if code != 0 {
		t.Fatalf("node_order_batch: %d %q", code, msg)
	}
	n, rest, err := msgp.ReadArrayHeaderBytes(rest)
	if err != nil || n != 2 {
		t.Fatalf("scores: %d, %v", n, err)
	}
	s0, rest, _ := msgp.ReadFloat64Bytes(rest)
	s1, _, _ := msgp.ReadFloat64Bytes(rest)
	if s0 != 0 || s1 != 1000 {
		t.Errorf("scores %v %v, want 0 and 1000 (t0 on n1)", s0, s1)
	}
	nd := h.session.View.Nodes[1]
	if nd.Idle.MilliCPU != 3000 || nd.Pods != 1 || h.session.View.Tasks[0].Status != Allocated {
		t.Errorf("after allocate: n1 idle %d pods %d, t0 %s", nd.Idle.MilliCPU, nd.Pods, h.session.View.Tasks[0].Status)
	}
	// Undoing the placement restores the node.
	decodeReply(t, h.dispatch(hookNodeOrderBatch, request(t, [][3]int32{{eventDeallocate, 0, -1}}, &Args{Task: 1, Job: -1, Queue: -1, Nodes: []int32{1}})))
	if nd := h.session.View.Nodes[1]; nd.Idle.MilliCPU != 4000 || nd.Used.MilliCPU != 0 || nd.Pods != 0 || nd.Used.Scalars.Get("pods") != 0 {
		t.Errorf("after deallocate: n1 %+v", nd)
	}
	// Bad handles and unknown hooks are reported, not crashed on.
	if code, msg, _ := decodeReply(t, h.dispatch(hookNodeOrderBatch, request(t, nil, &Args{Task: 9, Job: -1, Queue: -1, Nodes: []int32{0}}))); code != codeDecodeFailed {
		t.Errorf("bad task handle: %d %q", code, msg)
	}
	if code, _, _ := decodeReply(t, h.dispatch(99, request(t, nil, nil))); code != codeUnknownHook {
		t.Errorf("unknown hook: code %d", code)
	}
	if code, _, _ := decodeReply(t, h.dispatch(hookSessionClose, request(t, nil, nil))); code != 0 || f.closed != 1 || h.session != nil {
		t.Errorf("session_close: code %d, closed %d", code, f.closed)
	}
}

func TestDescribeListsImplementedHooks(t *testing.T) {
	Register(&fuller{})
	defer Register(nil)
	var d struct {
		name  string
		hooks []string
	}
	b := describe()
	n, b, _ := msgp.ReadMapHeaderBytes(b)
	for i := uint32(0); i < n; i++ {
		var k string
		k, b, _ = msgp.ReadStringBytes(b)
		switch k {
		case "name":
			d.name, b, _ = msgp.ReadStringBytes(b)
		case "hooks":
			var m uint32
			m, b, _ = msgp.ReadArrayHeaderBytes(b)
			for j := uint32(0); j < m; j++ {
				var s string
				s, b, _ = msgp.ReadStringBytes(b)
				d.hooks = append(d.hooks, s)
			}
		default:
			b, _ = msgp.Skip(b)
		}
	}
	if d.name != "fuller" || len(d.hooks) != 3 || d.hooks[2] != "node_order_batch" {
		t.Errorf("descriptor %+v", d)
	}
}

// describedAs is the descriptor of p, registered for the call, decoded.
func describedAs(t *testing.T, p Plugin) map[string]any {
	t.Helper()
	Register(p)
	defer Register(nil)
	// Decoding the whole map, and nothing after it, checks its header's count.
	v, rest, err := msgp.ReadIntfBytes(describe())
	if err != nil || len(rest) != 0 {
		t.Fatalf("descriptor: %v, %d bytes after it", err, len(rest))
	}
	return v.(map[string]any)
}

// nodeLocal is fuller declaring its predicate verdicts node-local, or not.
type nodeLocal struct {
	fuller
	local bool
}

func (n *nodeLocal) PredicatesNodeLocal() bool { return n.local }

func TestDescribeSendsNodeLocalOnlyWhenDeclared(t *testing.T) {
	for _, c := range []struct {
		name string
		p    Plugin
		want any // nil: no such key
	}{
		{"no declarer", &fuller{}, nil},
		{"declared false", &nodeLocal{}, nil},
		{"declared true", &nodeLocal{local: true}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := describedAs(t, c.p)["nodeLocal"]; got != c.want {
				t.Errorf("nodeLocal = %v, want %v", got, c.want)
			}
		})
	}
}

// declaring is fuller with declared arguments.
type declaring struct {
	fuller
	args []ArgumentSpec
}

func (d *declaring) DeclaredArguments() []ArgumentSpec { return d.args }

func TestDescribeSendsDeclaredArguments(t *testing.T) {
	for _, c := range []struct {
		name string
		p    Plugin
		want any // the descriptor's arguments; nil: no such key
	}{
		{"no declarer", &fuller{}, nil},
		{"nothing declared", &declaring{}, nil},
		{"one of each type", &declaring{args: []ArgumentSpec{
			{Name: "fuller.enabled", Type: ArgBool, Default: true},
			{Name: "fuller.weight", Type: ArgInt, Default: 300},
			{Name: "fuller.floor", Type: ArgInt, Default: int64(-1)},
			{Name: "fuller.ratio", Type: ArgFloat, Default: 0.5},
			{Name: "fuller.resource", Type: ArgString, Default: "nvidia.com/gpu"},
			{Name: "fuller.list", Type: ArgString, Default: []string{"not", "sent"}},
		}}, []any{
			map[string]any{"name": "fuller.enabled", "type": "bool", "default": true},
			map[string]any{"name": "fuller.weight", "type": "int", "default": int64(300)},
			map[string]any{"name": "fuller.floor", "type": "int", "default": int64(-1)},
			map[string]any{"name": "fuller.ratio", "type": "float", "default": 0.5},
			map[string]any{"name": "fuller.resource", "type": "string", "default": "nvidia.com/gpu"},
			map[string]any{"name": "fuller.list", "type": "string", "default": nil},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := describedAs(t, c.p)
			got, ok := d["arguments"]
			if c.want == nil {
				if ok {
					t.Errorf("arguments sent: %v", got)
				}
				return
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("arguments\n%#v, want\n%#v", got, c.want)
			}
			if d["name"] != "fuller" || d["sdk"] != SDKVersion {
				t.Errorf("descriptor %v", d)
			}
		})
	}
}
