package caldera

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/tinylib/msgp/msgp"
)

// The golden vectors in ../../testdata/abi (see runtime/golden_test.go):
// this SDK must decode the host's requests to the values below and encode
// its replies to exactly the reply bytes.
//
//	go test -run TestGoldenVectors -update   # rewrite the replies

var update = flag.Bool("update", false, "rewrite the reply vectors in testdata/abi")

const goldenDir = "../../testdata/abi"

func golden(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(goldenDir, name+".msgpack"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// goldenPlugin answers every hook of the reply vectors with fixed values
// and records what the requests decoded to.
type goldenPlugin struct {
	open     *Session
	claims   []*NodeClaims // what the last PredicateBatch read
	keys     int
	fitError string // task 1's, at the last close
}

func (*goldenPlugin) Name() string { return "golden" }

func (g *goldenPlugin) OnSessionOpen(s *Session) error { g.open = s; return nil }

func (g *goldenPlugin) OnSessionClose(s *Session) {
	g.fitError = s.FitError(&s.View.Tasks[1])
	s.SetCondition(&s.View.Jobs[0], "Unschedulable", "True", "NotEnoughResources", "1/2 tasks in gang unschedulable")
}

func (*goldenPlugin) NodeOrderBatch(_ *Session, _ *Task, _ []*Node, scores []float64) error {
	copy(scores, []float64{37.5, 0, -1})
	return nil
}

func (g *goldenPlugin) PredicateBatch(s *Session, _ *Task, _ []*Node, v []Verdict) {
	g.claims = g.claims[:0]
	for i := range v {
		g.claims = append(g.claims, s.NodeClaims(i))
	}
	v[len(v)-1] = Reject("node(s) had untolerated taint {gpu: true}")
}

// JobOrderKey answers [-5] the first time and [1, 0.25] after, so that one
// reply holds keys of two lengths.
func (g *goldenPlugin) JobOrderKey(*Session, *Job) Key {
	g.keys++
	if g.keys == 1 {
		return Key{-5}
	}
	return Key{1, 0.25}
}

func (*goldenPlugin) Preemptable(_ *Session, _ *Task, c []*Task) ([]*Task, bool) { return c, true }

// Evictable lets the first candidate go when the request says what
// request_evictable says: gangreclaim for job 0 in leaf-a.
func (*goldenPlugin) Evictable(s *Session, ctx EvictionContext, c []*Task) ([]*Task, bool) {
	if ctx.Kind != EvictGangReclaim || ctx.Job != &s.View.Jobs[0] || ctx.HyperNode != "leaf-a" || len(c) != 2 {
		return nil, true
	}
	return c[:1], true
}

// HyperNodeOrder scores leaf-a 87.5 and the cluster top 12.5 when the
// request says what request_hypernode_order says: job 0, allocated in
// leaf-a, candidates leaf-a and the top.
func (*goldenPlugin) HyperNodeOrder(s *Session, search HyperNodeSearch, hns []*HyperNode, scores []float64) error {
	v := &s.View
	if search.Job != &v.Jobs[0] || search.Allocated != &v.HyperNodes[1] || len(hns) != 2 || hns[0].Name != "leaf-a" || hns[1] != &v.HyperNodes[0] {
		return nil
	}
	scores[0], scores[1] = 87.5, 12.5
	return nil
}

// HyperNodeGradient offers leaf-a, then the cluster top, when the request
// says what request_hypernode_gradient says: job 0's tasks, for eviction,
// within the top, allocated in leaf-a.
func (*goldenPlugin) HyperNodeGradient(s *Session, search HyperNodeSearch) [][]*HyperNode {
	v := &s.View
	if search.Job != &v.Jobs[0] || search.Within != &v.HyperNodes[0] || search.Scope != ScopeTasks || search.Purpose != PurposeEvict ||
		search.Allocated != &v.HyperNodes[1] {
		return nil
	}
	return [][]*HyperNode{{&v.HyperNodes[1]}, {&v.HyperNodes[0]}}
}

func (*goldenPlugin) VictimTasks(_ *Session, tasks []*Task) []*Task { return tasks }

// Allocate names card 1 and takes back example.com/stale when the request
// says what request_allocate says: task 1, on node 0 by the event before
// it, at 2025-01-01T00:00:02Z.
func (*goldenPlugin) Allocate(s *Session, task *Task, p *Placement) string {
	if task != &s.View.Tasks[1] || task.Node != 0 || p.Now != 1735689602000000000 {
		return "task " + itoa(int(task.Handle)) + " on node " + itoa(int(task.Node)) + " at " + strconv.FormatInt(p.Now, 10)
	}
	p.Annotate("volcano.sh/gpu-index", "0")
	p.TakeBack("example.com/stale")
	p.Annotate("volcano.sh/gpu-index", "1") // the last word stands
	return ""
}

func (*goldenPlugin) JobValid(*Session, *Job) *ValidateResult {
	return &ValidateResult{Reason: "NotEnoughPods", Message: "1/2 tasks valid"}
}

func TestGoldenVectors(t *testing.T) {
	g := &goldenPlugin{}
	Register(g)
	defer Register(nil)
	h := &host{}

	// Requests the host encodes.
	if code, msg, _ := decodeReply(t, h.dispatch(hookSessionOpen, golden(t, "request_session_open"))); code != 0 {
		t.Fatalf("request_session_open: %d %s", code, msg)
	}
	v := g.open.View
	n, j, t1 := v.Nodes[0], v.Jobs[0], v.Tasks[1]
	if len(v.Nodes) != 1 || len(v.Queues) != 2 || len(v.Jobs) != 1 || len(v.Tasks) != 2 ||
		n.Name != "n0" || n.Labels["zone"] != "a" || n.Taints[0].Effect != "NoSchedule" ||
		n.Allocatable.Scalar("nvidia.com/gpu") != 2000 || n.Idle.MilliCPU != 6000 || n.Pods != 1 ||
		j.Priority != -5 || j.MinTaskMember["worker"] != 2 || j.CreationTime != 1735689600000 || j.Phase != PodGroupInqueue ||
		t1.Node != -1 || t1.NodeSelector["zone"] != "a" || t1.PriorityClassName != "low" || v.Tasks[0].Tolerations[0].Operator != "Exists" ||
		g.open.Arguments["binpack.resources"] != "nvidia.com/gpu" {
		t.Errorf("request_session_open decoded to %+v, arguments %v", v, g.open.Arguments)
	}
	// The queues' tree fields (ABI 1.7): none on the first, all on the second.
	if q0, q1 := v.Queues[0], v.Queues[1]; q0.Parent != "" || q0.Deserved != nil || !q0.IsReclaimable() ||
		q1.Parent != "org" || q1.Weight != 2 || q1.Deserved == nil || q1.Deserved.MilliCPU != 4000 || q1.Deserved.Memory != 8<<30 ||
		q1.Deserved.Scalar("nvidia.com/gpu") != 2000 || q1.IsReclaimable() {
		t.Errorf("request_session_open's queues decoded to %+v and %+v", q0, q1)
	}
	// The cluster's budgets and quotas (ABI 1.8).
	if b := v.DisruptionBudgets; len(b) != 2 || b[0].Name != "pg-budget" || b[0].DisruptionsAllowed != 1 || b[0].DisruptedPods[0] != "pg-0" ||
		!b[0].Selector.Matches(map[string]string{"app": "pg"}) || b[1].Name != "unselective" || b[1].Selector != nil ||
		len(v.ResourceQuotas) != 1 || v.ResourceQuotas[0].Hard["requests.cpu"] != 8000 || v.ResourceQuotas[0].Used["pods"] != 1000 {
		t.Errorf("request_session_open's budgets and quotas decoded to %+v and %+v", v.DisruptionBudgets, v.ResourceQuotas)
	}
	// The hypernodes and the job's network topology (ABI 1.9).
	if hn := v.HyperNodes; len(hn) != 2 || hn[0].Name != "<cluster-top-hypernode>" || hn[0].Tier != 2 || hn[0].Parent != -1 || len(hn[0].Nodes) != 0 ||
		hn[1].Name != "leaf-a" || hn[1].Tier != 1 || hn[1].Parent != 0 || len(hn[1].Nodes) != 1 || hn[1].Nodes[0] != 0 || hn[1].Handle != 1 ||
		j.NetworkTopology == nil || j.NetworkTopology.Mode != TopologyHard || *j.NetworkTopology.HighestTier != 1 || *j.AllocatedHyperNode != 1 {
		t.Errorf("request_session_open's hypernodes decoded to %+v, the job's topology to %+v, %v", v.HyperNodes, j.NetworkTopology, j.AllocatedHyperNode)
	}
	// The tasks' claims and the node's CSI limits (ABI 1.10).
	c0, c1 := g.open.Claims(&v.Tasks[0]), g.open.Claims(&v.Tasks[1])
	if c0 == nil || len(c0.Volumes) != 0 || c0.Devices[0].Name != "pg-0-gpu" || c0.Devices[0].Devices[0] != "gpu.example.com/n0/gpu-1" ||
		c1 == nil || c1.Volumes[0].Name != "data-pg-1" || c1.Volumes[0].Volume != "pv-7" || c1.Volumes[0].StorageClass != "local" ||
		c1.Devices[0].Name != "pg-1-gpu" || len(c1.Devices[0].Devices) != 0 || g.open.VolumeLimits(&n)["ebs.csi.example.com"] != 25 {
		t.Errorf("request_session_open's claims decoded to %+v, limits %+v", v.TaskClaims, v.VolumeLimits)
	}
	// The pod rules' fields (ABI 1.4).
	other, spread := n.Others[0], t1.SpreadConstraints[0]
	pref := t1.PodAntiAffinity.Preferred[0]
	if n.Images[0].Names[1] != "registry.local/app@sha256:ab" || n.Images[0].Size != 300<<20 ||
		other.Name != "dns-0" || other.PodAntiAffinity.Required[0].Selector.Requirements[0].Values[0] != "dns" ||
		other.PodAntiAffinity.Required[0].TopologyKey != "kubernetes.io/hostname" ||
		t1.Images[0] != "registry.local/app:1" || pref.Weight != 10 || pref.Term.Selector == nil ||
		len(pref.Term.Selector.Requirements) != 0 || pref.Term.NamespaceSelector == nil || pref.Term.TopologyKey != "zone" ||
		spread.MaxSkew != 1 || spread.WhenUnsatisfiable != "DoNotSchedule" || spread.Selector.Requirements[0].Key != "app" ||
		spread.MinDomains != 1 || spread.NodeAffinityPolicy != "Honor" || spread.NodeTaintsPolicy != "Ignore" ||
		v.Namespaces["ns"]["team"] != "a" || len(v.Namespaces) != 2 || v.Tasks[0].PodAntiAffinity != nil ||
		!v.Tasks[0].SpreadDefaulted || v.Tasks[0].SpreadConstraints[0].MaxSkew != 3 || t1.SpreadDefaulted {
		t.Errorf("request_session_open's pod rules decoded to node %+v, task %+v, namespaces %v", n, t1, v.Namespaces)
	}
	// GPU sharing (ABI 1.12): the node's three cards, card 1 unhealthy;
	// task 1's request.
	if gp := n.GPUs; len(gp) != 3 || gp[0] != (GPU{ID: 0, Memory: 8000, Used: 3000, Holders: 1}) ||
		gp[1] != (GPU{ID: 1, Memory: 8000, Unhealthy: true}) || gp[2] != (GPU{ID: 2, Memory: 8000}) ||
		t1.GPUMemory != 2000 || t1.GPUNumber != 0 || v.Tasks[0].GPUMemory != 0 {
		t.Errorf("request_session_open's GPU sharing decoded to cards %+v, task 1 %d memory %d number", n.GPUs, t1.GPUMemory, t1.GPUNumber)
	}
	if w, err := g.open.Int("binpack.weight", 0); err != nil || w != 10 {
		t.Errorf("binpack.weight = %d, %v", w, err)
	}

	// The session's fit errors come with its close (ABI 1.6).
	decodeReply(t, h.dispatch(hookSessionClose, golden(t, "request_session_close_fit_errors")))
	if want := "0/1 nodes are unavailable: 1 Insufficient cpu."; g.fitError != want {
		t.Errorf("request_session_close_fit_errors: task 1's fit error %q, want %q", g.fitError, want)
	}

	// The delta resends task 1 (an event touched it) and nothing else.
	g.open.View.Tasks[1].Status = Allocated // what an event had done
	if code, msg, _ := decodeReply(t, h.dispatch(hookSessionOpen, golden(t, "request_session_open_delta"))); code != 0 {
		t.Fatalf("request_session_open_delta: %d %s", code, msg)
	}
	if st := g.open.View.Tasks[1].Status; st != Pending || g.open.View.Nodes[0].Name != "n0" || g.open.View.Namespaces["ns"]["team"] != "a" ||
		len(g.open.View.DisruptionBudgets) != 2 || len(g.open.View.ResourceQuotas) != 1 || len(g.open.View.HyperNodes) != 2 {
		t.Errorf("after the delta task 1 is %s, node 0 %q", st, g.open.View.Nodes[0].Name)
	}

	// Events ride on a request: task 1 placed on node 0, job 0 admitted.
	g.open.View.Jobs[0].Phase = PodGroupPending
	if code, msg, _ := decodeReply(t, h.dispatch(hookPredicateBatch, golden(t, "request_predicate_batch"))); code != 0 {
		t.Fatalf("request_predicate_batch: %d %s", code, msg)
	}
	if tk, nd := g.open.View.Tasks[1], g.open.View.Nodes[0]; tk.Status != Allocated || tk.Node != 0 || nd.Idle.MilliCPU != 4000 || g.open.View.Jobs[0].Phase != PodGroupInqueue {
		t.Errorf("events of request_predicate_batch: task %s on %d, node idle %d, job %s", tk.Status, tk.Node, nd.Idle.MilliCPU, g.open.View.Jobs[0].Phase)
	}

	// The scheduler's volume and device checks (ABI 1.10): the first node
	// passes, the second (the same node asked again) fails the device
	// check for good; the next call without them reads none.
	if code, msg, _ := decodeReply(t, h.dispatch(hookPredicateBatch, golden(t, "request_predicate_batch_claims"))); code != 0 {
		t.Fatalf("request_predicate_batch_claims: %d %s", code, msg)
	}
	if c := g.claims; len(c) != 2 || c[0] != nil || c[1] == nil || !c[1].RuledOut || len(c[1].Checks) != 1 ||
		ClaimStage(c[1].Checks[0].Stage) != StageDevices || Code(c[1].Checks[0].Code) != UnschedulableAndUnresolvable ||
		c[1].Checks[0].Reasons[0] != "cannot allocate all claims" || !c[1].Checks[0].Ends() {
		t.Errorf("request_predicate_batch_claims: the plugin read %+v", c)
	}
	decodeReply(t, h.dispatch(hookPredicateBatch, request(t, nil, &Args{Task: 1, Job: -1, Queue: -1, Nodes: []int32{0}})))
	if len(g.claims) != 1 || g.claims[0] != nil {
		t.Errorf("a predicate_batch without claims: the plugin read %+v", g.claims)
	}

	// Replies this SDK encodes, each to a request vector or a plain one.
	for _, c := range []struct {
		name string
		hook uint32
		req  []byte
	}{
		{"reply_predicate_batch", hookPredicateBatch, request(t, nil, &Args{Task: 1, Job: -1, Queue: -1, Nodes: []int32{0, 0}})},
		{"reply_job_order_keys", hookJobOrderKeys, request(t, nil, &Args{Task: -1, Job: -1, Queue: -1, Jobs: []int32{0, 0}})},
		{"reply_preemptable", hookPreemptable, golden(t, "request_preemptable")},
		{"reply_evictable", hookEvictable, golden(t, "request_evictable")},
		{"reply_hypernode_order", hookHyperNodeOrder, golden(t, "request_hypernode_order")},
		{"reply_hypernode_gradient", hookHyperNodeGradient, golden(t, "request_hypernode_gradient")},
		{"reply_allocate", hookAllocate, golden(t, "request_allocate")},
		{"reply_node_order_batch", hookNodeOrderBatch, request(t, nil, &Args{Task: 0, Job: -1, Queue: -1, Nodes: []int32{0, 0, 0}})},
		{"reply_job_valid", hookJobValid, request(t, nil, &Args{Task: -1, Job: 0, Queue: -1})},
		{"reply_session_close", hookSessionClose, golden(t, "request_session_close")},
	} {
		got := append([]byte(nil), h.dispatch(c.hook, c.req)...)
		check(t, c.name, got)
	}
	// Handles past 127 and 32767 take msgp's int16 and int32 forms (never
	// uint8 or uint16). No request vector has that many objects: this reply
	// answers a view of its own.
	big := &host{session: NewSession(View{Tasks: make([]Task, bigVictims[len(bigVictims)-1]+1)}, nil)}
	got := append([]byte(nil), big.dispatch(hookVictimTasks, request(t, nil, &Args{Task: -1, Job: -1, Queue: -1, Tasks: bigVictims}))...)
	check(t, "reply_victim_tasks", got)

	h2 := &host{}
	Register(&badArgs{})
	got = append([]byte(nil), h2.dispatch(hookSessionOpen, request(t, nil, &OpenArgs{Arguments: map[string]any{"binpack.weight": "ten"}}))...)
	check(t, "reply_error", got)
}

// bigVictims are the task handles of reply_victim_tasks: each side of
// msgpack's fixint, int16 and int32 boundaries.
var bigVictims = []int32{0, 127, 128, 255, 256, 32767, 32768}

type badArgs struct{}

func (*badArgs) Name() string { return "bad" }

func (*badArgs) OnSessionOpen(s *Session) error {
	_, err := s.Int("binpack.weight", 1)
	return err
}

func check(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join(goldenDir, name+".msgpack")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run TestGoldenVectors -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: the SDK encodes\n%x\nthe golden vector is\n%x", name, got, want)
	}
}

// reservingHandler answers request_cache_event: the new allocatable less
// 6 CPUs and 2 GiB for a node, pass for anything else.
type reservingHandler struct{ got []CacheEvent }

func (*reservingHandler) Name() string { return "reserving" }

func (*reservingHandler) EventKinds() []string { return []string{"Node"} }

func (r *reservingHandler) OnCacheEvent(ev *CacheEvent) EventVerdict {
	r.got = append(r.got, *ev)
	if ev.Kind != "Node" {
		return PassEvent()
	}
	a := *ev.New.Allocatable
	a.MilliCPU -= 6000
	a.Memory -= 2 << 30
	return AdjustAllocatable(a)
}

func TestGoldenCacheEvent(t *testing.T) {
	r := &reservingHandler{}
	Register(r)
	defer Register(nil)
	h := &host{}
	got := append([]byte(nil), h.dispatch(hookCacheEvent, golden(t, "request_cache_event"))...)
	if len(r.got) != 2 {
		t.Fatalf("%d events decoded, want 2", len(r.got))
	}
	ev, pod := r.got[0], r.got[1]
	if ev.Type != "update" || ev.Kind != "Node" || ev.Old == nil || ev.New == nil ||
		ev.Old.Annotations["caldera.sh/external-reserved"] != "cpu=6" ||
		ev.New.Annotations["caldera.sh/external-reserved"] != "cpu=6,memory=2Gi" ||
		ev.New.Labels["zone"] != "a" || len(ev.New.Taints) != 1 || ev.New.Taints[0].Key != "gpu" || !ev.New.Unschedulable ||
		ev.New.Allocatable.MilliCPU != 8000 || ev.New.Allocatable.Memory != 32<<30 || ev.New.Allocatable.Scalar("pods") != 110 ||
		ev.Old.Labels != nil || ev.Old.Unschedulable {
		t.Errorf("event 0 decoded to %+v", ev)
	}
	if pod.Type != "delete" || pod.Kind != "Pod" || pod.New != nil || pod.Old.Namespace != "ns" || pod.Old.Requests.MilliCPU != 1000 ||
		pod.Old.Requests.Scalar("pods") != 1 || pod.Old.Priority == nil || *pod.Old.Priority != 5 || pod.Old.NodeName != "n1" || pod.Old.Phase != "Running" {
		t.Errorf("event 1 decoded to %+v", pod)
	}
	check(t, "reply_cache_event", got)
}

// ruledPlugin withdraws node-local verdicts, gives every task class 0 and
// answers pre_predicate with reply_pre_predicate_rules' domain rules.
type ruledPlugin struct{}

func (ruledPlugin) Name() string                                       { return "ruled" }
func (ruledPlugin) PredicatesNodeLocal() bool                          { return true }
func (ruledPlugin) PredicatesNodeLocalIn(*Session) bool                { return false }
func (ruledPlugin) PredicatesNodeLocalClasses(_ *Session, c []int32)   { clear(c) }
func (ruledPlugin) PrePredicate(*Session, *Task) Verdict               { return Pass }
func (ruledPlugin) PredicateBatch(*Session, *Task, []*Node, []Verdict) {}

func (ruledPlugin) PredicateDomainRules(_ *Session, _ *Task, r *DomainRules) bool {
	r.Class = 2
	zone := r.Add("zone", FailMissing|FailListed)
	zone.Values = append(zone.Values, "a", "b")
	r.Add("kubernetes.io/hostname", FailMissing)
	return true
}

// TestGoldenKeptRuns: request_session_open_keep (1.11) puts a new task
// first and keeps the two held ones, moved one handle up, with everything
// the first view gave them.
func TestGoldenKeptRuns(t *testing.T) {
	g := &goldenPlugin{}
	Register(g)
	defer Register(nil)
	h := &host{}
	for _, name := range []string{"request_session_open", "request_session_close", "request_session_open_keep"} {
		hook := uint32(hookSessionOpen)
		if name == "request_session_close" {
			hook = hookSessionClose
		}
		if code, msg, _ := decodeReply(t, h.dispatch(hook, golden(t, name))); code != 0 {
			t.Fatalf("%s: %d %s", name, code, msg)
		}
	}
	v := g.open.View
	if len(v.Tasks) != 3 || v.Tasks[0].Name != "pg-2" || v.Tasks[0].Request.MilliCPU != 500 || v.Tasks[0].Handle != 0 ||
		v.Tasks[1].Name != "pg-0" || v.Tasks[1].Status != Running || v.Tasks[1].Tolerations[0].Operator != "Exists" || v.Tasks[1].Handle != 1 ||
		v.Tasks[2].Name != "pg-1" || v.Tasks[2].NodeSelector["zone"] != "a" || v.Tasks[2].Handle != 2 ||
		len(v.Jobs[0].Tasks) != 3 || v.Nodes[0].Name != "n0" {
		t.Errorf("after request_session_open_keep the tasks are %+v, job 0 has %d", v.Tasks, len(v.Jobs[0].Tasks))
	}
	if c := g.open.Claims(&v.Tasks[1]); c == nil || c.Devices[0].Name != "pg-0-gpu" {
		t.Errorf("pg-0's claims after the move: %+v", c)
	}
	// A run outside the held list is refused, not read past it.
	run := msgp.AppendInt32(msgp.AppendInt32(msgp.AppendInt32(msgp.AppendArrayHeader(msgp.AppendArrayHeader(nil, 1), 3), 0), 1), 2)
	if _, _, err := keepRuns(run, make([]Task, 2), nil, 3); err == nil {
		t.Error("a run of 2 from held handle 1 of 2 was accepted")
	}
}

// TestGoldenDomainRules: to a 1.5 or later host (request_session_open says 1.12) a
// passing pre_predicate carries the rules; to a host that does not say its
// version, the plain verdict.
func TestGoldenDomainRules(t *testing.T) {
	Register(ruledPlugin{})
	defer Register(nil)
	pre := request(t, nil, &Args{Task: 1, Job: -1, Queue: -1})

	h := &host{}
	if code, msg, _ := decodeReply(t, h.dispatch(hookSessionOpen, golden(t, "request_session_open"))); code != 0 {
		t.Fatalf("request_session_open: %d %s", code, msg)
	}
	if m := h.session.HostABIMinor(); m != 12 {
		t.Errorf("request_session_open says the host speaks 1.%d, want 1.12", m)
	}
	check(t, "reply_pre_predicate_rules", append([]byte(nil), h.dispatch(hookPrePredicate, pre)...))

	old := &host{}
	view := request(t, nil, &OpenArgs{View: View{Tasks: make([]Task, 2)}})
	if code, msg, _ := decodeReply(t, old.dispatch(hookSessionOpen, view)); code != 0 {
		t.Fatalf("session_open without abi: %d %s", code, msg)
	}
	_, _, result := decodeReply(t, old.dispatch(hookPrePredicate, pre))
	if n, _, err := msgp.ReadArrayHeaderBytes(result); err != nil || n != 2 {
		t.Errorf("to a host that did not say its version, pre_predicate answered a %d-array (%v), want [code, reason]", n, err)
	}
}
