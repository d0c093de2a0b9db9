package main

import (
	"fmt"
	"testing"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

// The port's decisions are proven equal to the native plugin's by
// cmd/caldera's TestPortsDecideAsNative; these tests pin the rules that the
// scenarios exercise rarely, and that the hot hook allocates nothing.

func open(t testing.TB, nodes []caldera.Node, tasks []caldera.Task, args map[string]any) (*plugin, *caldera.Session) {
	t.Helper()
	s := &caldera.Session{View: caldera.View{Nodes: nodes, Tasks: tasks}, Arguments: args}
	for i := range s.View.Nodes {
		s.View.Nodes[i].Handle = int32(i)
	}
	for i := range s.View.Tasks {
		s.View.Tasks[i].Handle = int32(i)
	}
	p := &plugin{}
	if err := p.OnSessionOpen(s); err != nil {
		t.Fatal(err)
	}
	return p, s
}

func node(name string, pods int64) caldera.Node {
	r := caldera.Resource{MilliCPU: 4000, Memory: 8 << 30, Scalars: caldera.ScalarsOf(map[string]int64{"pods": pods})}
	return caldera.Node{Name: name, Allocatable: r, Idle: r, Labels: map[string]string{"zone": "a", "num": "7"}}
}

func task() caldera.Task {
	return caldera.Task{Node: -1, Status: caldera.Pending, InitRequest: caldera.Resource{MilliCPU: 1000, Memory: 1 << 30}}
}

func term(exprs ...caldera.NodeSelectorRequirement) caldera.NodeSelectorTerm {
	return caldera.NodeSelectorTerm{MatchExpressions: exprs}
}

func required(terms ...caldera.NodeSelectorTerm) *caldera.NodeAffinity {
	return &caldera.NodeAffinity{Required: &caldera.NodeSelector{Terms: terms}}
}

func verdicts(p *plugin, s *caldera.Session, task int32) []caldera.Verdict {
	nodes := make([]*caldera.Node, len(s.View.Nodes))
	for i := range nodes {
		nodes[i] = &s.View.Nodes[i]
	}
	out := make([]caldera.Verdict, len(nodes))
	p.PredicateBatch(s, &s.View.Tasks[task], nodes, out)
	return out
}

func TestPredicateBatch(t *testing.T) {
	const (
		uau   = caldera.UnschedulableAndUnresolvable
		unsch = caldera.Unschedulable
	)
	port := caldera.HostPort{IP: "0.0.0.0", Port: 8080, Protocol: "TCP"}
	tests := []struct {
		name string
		node func(*caldera.Node)
		task func(*caldera.Task)
		args map[string]any
		want caldera.Verdict
	}{
		{name: "fits"},
		{name: "cordoned", node: func(n *caldera.Node) { n.Unschedulable = true },
			want: caldera.Verdict{Code: uau, Reason: reasonUnschedulable}},
		{name: "cordoned, tolerated", node: func(n *caldera.Node) { n.Unschedulable = true },
			task: func(t *caldera.Task) {
				t.Tolerations = []caldera.Toleration{{Key: "node.kubernetes.io/unschedulable", Operator: "Exists"}}
			}},
		{name: "selector mismatch", task: func(t *caldera.Task) { t.NodeSelector = map[string]string{"zone": "b"} },
			want: caldera.Verdict{Code: uau, Reason: reasonNodeAffinity}},
		{name: "selector mismatch, affinity off", task: func(t *caldera.Task) { t.NodeSelector = map[string]string{"zone": "b"} },
			args: map[string]any{"predicate.NodeAffinityEnable": "false"}},
		{name: "Gt matches", task: func(t *caldera.Task) {
			t.NodeAffinity = required(term(caldera.NodeSelectorRequirement{Key: "num", Operator: "Gt", Values: []string{"5"}}))
		}},
		{name: "no required terms match nothing", task: func(t *caldera.Task) { t.NodeAffinity = required() },
			want: caldera.Verdict{Code: uau, Reason: reasonNodeAffinity}},
		{name: "invalid term matches nothing, the next term matches", task: func(t *caldera.Task) {
			bad := term(caldera.NodeSelectorRequirement{Key: "zone", Operator: "In", Values: []string{"a"}})
			bad.Invalid = true
			t.NodeAffinity = required(bad, caldera.NodeSelectorTerm{MatchFields: []caldera.NodeSelectorRequirement{{Key: "metadata.name", Operator: "In", Values: []string{"n1"}}}})
		}},
		{name: "NotIn on a missing label matches", task: func(t *caldera.Task) {
			t.NodeAffinity = required(term(caldera.NodeSelectorRequirement{Key: "rack", Operator: "NotIn", Values: []string{"r1"}}))
		}},
		{name: "untolerated NoExecute taint", node: func(n *caldera.Node) {
			n.Taints = []caldera.Taint{{Key: "soft", Effect: "PreferNoSchedule"}, {Key: "spot", Value: "true", Effect: "NoExecute"}}
		}, want: caldera.Verdict{Code: uau, Reason: "node(s) had untolerated taint {spot: true}"}},
		{name: "taint and no pod slot", node: func(n *caldera.Node) {
			n.Taints = []caldera.Taint{{Key: "spot", Value: "true", Effect: "NoSchedule"}}
			n.Pods = 2
		}, want: caldera.Verdict{Code: uau, Reason: "node(s) pod number exceeded, node(s) had untolerated taint {spot: true}"}},
		{name: "insufficient cpu", node: func(n *caldera.Node) { n.Idle.MilliCPU = 500 },
			want: caldera.Verdict{Code: unsch, Reason: "Insufficient cpu"}},
		{name: "releasing counts, pipelined does not", node: func(n *caldera.Node) {
			n.Idle.MilliCPU, n.Releasing.MilliCPU, n.Pipelined.MilliCPU = 500, 1000, 600
		}, want: caldera.Verdict{Code: unsch, Reason: "Insufficient cpu"}},
		{name: "insufficient scalar", task: func(t *caldera.Task) {
			t.InitRequest.Scalars = caldera.ScalarsOf(map[string]int64{"nvidia.com/gpu": 1000})
		},
			want: caldera.Verdict{Code: unsch, Reason: "Insufficient nvidia.com/gpu"}},
		{name: "no pod slot", node: func(n *caldera.Node) { n.Pods = 2 },
			want: caldera.Verdict{Code: unsch, Reason: reasonPodNumberExceeded}},
		{name: "port taken", node: func(n *caldera.Node) { n.HostPorts = []caldera.HostPort{{IP: "10.0.0.1", Port: 8080, Protocol: "TCP"}} },
			task: func(t *caldera.Task) { t.HostPorts = []caldera.HostPort{port} },
			want: caldera.Verdict{Code: unsch, Reason: reasonNodePorts}},
		{name: "port on another protocol", node: func(n *caldera.Node) { n.HostPorts = []caldera.HostPort{{IP: "0.0.0.0", Port: 8080, Protocol: "UDP"}} },
			task: func(t *caldera.Task) { t.HostPorts = []caldera.HostPort{port} }},
		{name: "port taken and no pod slot", node: func(n *caldera.Node) { n.HostPorts, n.Pods = []caldera.HostPort{port}, 2 },
			task: func(t *caldera.Task) { t.HostPorts = []caldera.HostPort{port} },
			want: caldera.Verdict{Code: unsch, Reason: reasonTooManyAndPorts}},
		{name: "port taken, ports off", node: func(n *caldera.Node) { n.HostPorts = []caldera.HostPort{port} },
			task: func(t *caldera.Task) { t.HostPorts = []caldera.HostPort{port} }, args: map[string]any{"predicate.NodePortsEnable": false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, tk := node("n1", 2), task()
			if tt.node != nil {
				tt.node(&n)
			}
			if tt.task != nil {
				tt.task(&tk)
			}
			p, s := open(t, []caldera.Node{n}, []caldera.Task{tk}, tt.args)
			if got := verdicts(p, s, 0)[0]; got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestPrePredicateNameConflict(t *testing.T) {
	names := func(values ...string) caldera.NodeSelectorTerm {
		return caldera.NodeSelectorTerm{MatchFields: []caldera.NodeSelectorRequirement{{Key: "metadata.name", Operator: "In", Values: values}}}
	}
	both := names("n1", "n2")
	both.MatchFields = append(both.MatchFields, caldera.NodeSelectorRequirement{Key: "metadata.name", Operator: "In", Values: []string{"n3"}})
	for _, tt := range []struct {
		name     string
		terms    []caldera.NodeSelectorTerm
		conflict bool
	}{
		{"one name", []caldera.NodeSelectorTerm{names("n1")}, false},
		{"disjoint names in one term", []caldera.NodeSelectorTerm{both}, true},
		{"a term without names", []caldera.NodeSelectorTerm{both, term()}, false},
		{"no terms", nil, false},
	} {
		tk := task()
		tk.NodeAffinity = required(tt.terms...)
		p, s := open(t, []caldera.Node{node("n1", 10)}, []caldera.Task{tk}, nil)
		got := p.PrePredicate(s, &s.View.Tasks[0])
		if (got.Code == caldera.UnschedulableAndUnresolvable) != tt.conflict {
			t.Errorf("%s: got %+v, conflict %v", tt.name, got, tt.conflict)
		}
	}
}

// An eviction stops counting the task on its node (a pod slot and its
// port free up); undoing it counts it again. A placement takes a slot; an
// undone one gives it back.
func TestEventsFollowVolcanoCounting(t *testing.T) {
	port := caldera.HostPort{IP: "0.0.0.0", Port: 8080, Protocol: "TCP"}
	running, pending := task(), task()
	running.Status, running.Node, running.HostPorts = caldera.Running, 0, []caldera.HostPort{port}
	pending.HostPorts = []caldera.HostPort{port}
	n := node("n1", 2)
	n.Pods, n.HostPorts = 2, []caldera.HostPort{port}
	p, s := open(t, []caldera.Node{n}, []caldera.Task{running, pending}, nil)
	check := func(when, want string) {
		t.Helper()
		if got := verdicts(p, s, 1)[0].Reason; got != want {
			t.Errorf("%s: got %q, want %q", when, got, want)
		}
	}
	check("at open", reasonTooManyAndPorts)
	s.View.Tasks[0].Status = caldera.Releasing
	p.OnDeallocate(s, &s.View.Tasks[0])
	check("after the eviction", "")
	s.View.Tasks[0].Status = caldera.Running
	p.OnAllocate(s, &s.View.Tasks[0])
	check("after the eviction is undone", reasonTooManyAndPorts)
}

func TestPredicateBatchAllocatesNothing(t *testing.T) {
	nodes := make([]caldera.Node, 200)
	for i := range nodes {
		nodes[i] = node(fmt.Sprintf("n%d", i), 110)
		if i%3 == 0 {
			nodes[i].Taints = []caldera.Taint{{Key: "spot", Value: "true", Effect: "NoSchedule"}}
		}
		if i%5 == 0 {
			nodes[i].Idle.MilliCPU = 0
		}
	}
	tk := task()
	tk.NodeSelector = map[string]string{"zone": "a"}
	tk.HostPorts = []caldera.HostPort{{IP: "0.0.0.0", Port: 8080, Protocol: "TCP"}}
	p, s := open(t, nodes, []caldera.Task{tk}, nil)
	ptrs := make([]*caldera.Node, len(nodes))
	for i := range ptrs {
		ptrs[i] = &s.View.Nodes[i]
	}
	out := make([]caldera.Verdict, len(ptrs))
	if allocs := testing.AllocsPerRun(10, func() { p.PredicateBatch(s, &s.View.Tasks[0], ptrs, out) }); allocs != 0 {
		t.Errorf("PredicateBatch allocated %.0f times over %d nodes", allocs, len(ptrs))
	}
}

func BenchmarkPredicateBatch(b *testing.B) {
	nodes := make([]caldera.Node, 1000)
	for i := range nodes {
		nodes[i] = node(fmt.Sprintf("n%d", i), 110)
	}
	tk := task()
	tk.NodeAffinity = required(term(caldera.NodeSelectorRequirement{Key: "zone", Operator: "In", Values: []string{"a", "b"}}))
	p, s := open(b, nodes, []caldera.Task{tk}, nil)
	ptrs := make([]*caldera.Node, len(nodes))
	for i := range ptrs {
		ptrs[i] = &s.View.Nodes[i]
	}
	out := make([]caldera.Verdict, len(ptrs))
	b.ReportAllocs()
	for b.Loop() {
		p.PredicateBatch(s, &s.View.Tasks[0], ptrs, out)
	}
}

// A plugin serves session after session: the second open starts from its
// own view, not from what the first counted.
func TestReopenedSessionForgetsThePrevious(t *testing.T) {
	port := caldera.HostPort{IP: "0.0.0.0", Port: 8080, Protocol: "TCP"}
	busy := node("n1", 2)
	busy.Pods, busy.HostPorts = 2, []caldera.HostPort{port}
	pending := task()
	pending.HostPorts = []caldera.HostPort{port}
	p, s := open(t, []caldera.Node{busy}, []caldera.Task{pending}, nil)
	if got := verdicts(p, s, 0)[0].Reason; got != reasonTooManyAndPorts {
		t.Fatalf("first session: got %q, want %q", got, reasonTooManyAndPorts)
	}
	s = &caldera.Session{View: caldera.View{Nodes: []caldera.Node{node("n1", 2)}, Tasks: []caldera.Task{pending}}}
	if err := p.OnSessionOpen(s); err != nil {
		t.Fatal(err)
	}
	if got := verdicts(p, s, 0)[0]; got.Code != caldera.Success {
		t.Errorf("second session, node free: got %+v", got)
	}
}

// A request short in two scalars is refused for the first by name.
func TestShortScalarsReportedByName(t *testing.T) {
	n := node("n1", 110)
	tk := task()
	tk.InitRequest.Scalars = caldera.ScalarsOf(map[string]int64{"vendor.com/b": 1, "vendor.com/a": 1})
	p, s := open(t, []caldera.Node{n}, []caldera.Task{tk}, nil)
	if got, want := verdicts(p, s, 0)[0].Reason, insufficientPrefix+"vendor.com/a"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Opening a session costs a few allocations, not some per task or per
// node: under TinyGo each one brings the collector's next walk over the
// whole view closer.
func TestReopeningAllocatesNothingPerTask(t *testing.T) {
	nodes := make([]caldera.Node, 100)
	for i := range nodes {
		nodes[i] = node(fmt.Sprintf("n%d", i), 110)
		if i%3 == 0 {
			nodes[i].Taints = []caldera.Taint{{Key: "spot", Value: "true", Effect: "NoSchedule"}, {Key: "soft", Effect: "PreferNoSchedule"}}
		}
		if i%4 == 0 {
			nodes[i].HostPorts = []caldera.HostPort{{IP: "0.0.0.0", Port: 8080, Protocol: "TCP"}}
		}
	}
	tasks := make([]caldera.Task, 1000)
	for i := range tasks {
		tasks[i] = task()
		tasks[i].NodeSelector = map[string]string{"zone": "a", "num": "7"}
		tasks[i].InitRequest.Scalars = caldera.ScalarsOf(map[string]int64{"vendor.com/gpu": 1})
	}
	p, s := open(t, nodes, tasks, nil)
	allocs := testing.AllocsPerRun(5, func() {
		if err := p.OnSessionOpen(s); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 20 {
		t.Errorf("reopening a session of %d tasks allocated %.0f times", len(tasks), allocs)
	}
}

// A taint's reason is kept from one session to the next only while the
// taint stays the same.
func TestReopenedTaintReasonFollowsTheTaint(t *testing.T) {
	tainted := func(value string) caldera.Node {
		n := node("n1", 110)
		n.Taints = []caldera.Taint{{Key: "spot", Value: value, Effect: "NoSchedule"}}
		return n
	}
	p, s := open(t, []caldera.Node{tainted("a")}, []caldera.Task{task()}, nil)
	for _, value := range []string{"a", "b", "b"} {
		s = &caldera.Session{View: caldera.View{Nodes: []caldera.Node{tainted(value)}, Tasks: []caldera.Task{task()}}}
		if err := p.OnSessionOpen(s); err != nil {
			t.Fatal(err)
		}
		want := "node(s) had untolerated taint {spot: " + value + "}"
		if got := verdicts(p, s, 0)[0].Reason; got != want {
			t.Errorf("taint value %s: got %q, want %q", value, got, want)
		}
	}
}
