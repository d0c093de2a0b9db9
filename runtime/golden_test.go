package runtime

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/caldera-scheduler/caldera/abi"
)

// The golden vectors in testdata/abi pin the ABI's bytes. Requests
// (request_*.msgpack) are what this host encodes; every guest SDK must
// decode them to the values in testdata/abi/README.md. Replies
// (reply_*.msgpack) are what a guest SDK encodes; this host must decode
// them, and every SDK must produce exactly these bytes.
//
//	go test ./runtime -run TestGoldenVectors -update   # rewrite the requests

var update = flag.Bool("update", false, "rewrite the request vectors in testdata/abi")

const goldenDir = "../testdata/abi"

// notReclaimable is the golden view's second queue's spec.reclaimable.
var notReclaimable = false

// goldenTier and goldenLeaf are the golden job's highest tier and
// allocated hypernode (leaf-a's handle).
var goldenTier, goldenLeaf int32 = 1, 1

// goldenView is the view of request_session_open: one of every object,
// with the fields that need care on the wire (maps, scalars, negatives).
// goldenCard is the card reply_allocate names.
var goldenCard = "1"

func goldenView() abi.View {
	return abi.View{
		Nodes: []abi.Node{{
			Name:        "n0",
			Labels:      map[string]string{"zone": "a", "kubernetes.io/hostname": "n0"},
			Taints:      []abi.Taint{{Key: "gpu", Value: "true", Effect: "NoSchedule"}},
			Allocatable: abi.Resource{MilliCPU: 8000, Memory: 32 << 30, Scalars: map[string]int64{"pods": 110, "nvidia.com/gpu": 2000}},
			Idle:        abi.Resource{MilliCPU: 6000, Memory: 30 << 30, Scalars: map[string]int64{"pods": 109, "nvidia.com/gpu": 2000}},
			Used:        abi.Resource{MilliCPU: 2000, Memory: 2 << 30, Scalars: map[string]int64{"pods": 1}},
			Pods:        1,
			Images:      []abi.Image{{Names: []string{"registry.local/app:1", "registry.local/app@sha256:ab"}, Size: 300 << 20}},
			Others: []abi.Pod{{Namespace: "kube-system", Name: "dns-0", Labels: map[string]string{"app": "dns"},
				PodAntiAffinity: &abi.PodAffinity{Required: []abi.PodAffinityTerm{{
					Selector:   &abi.Selector{Requirements: []abi.NodeSelectorRequirement{{Key: "app", Operator: "In", Values: []string{"dns"}}}},
					Namespaces: []string{"kube-system"}, TopologyKey: "kubernetes.io/hostname"}}}}},
			// 1.12: three cards, card 1 unhealthy, card 0
			// held by the running task.
			GPUs: []abi.GPU{{ID: 0, Memory: 8000, Used: 3000, Holders: 1}, {ID: 1, Memory: 8000, Unhealthy: true}, {ID: 2, Memory: 8000}},
		}},
		Queues: []abi.Queue{{Name: "default", Weight: 1, State: "Open"},
			{Name: "team", Weight: 2, State: "Open", Parent: "org", Deserved: &abi.Resource{MilliCPU: 4000, Memory: 8 << 30, Scalars: map[string]int64{"nvidia.com/gpu": 2000}},
				Reclaimable: &notReclaimable}},
		Jobs: []abi.Job{{Namespace: "ns", Name: "pg", Queue: 0, Priority: -5, MinAvailable: 2, Phase: "Inqueue",
			CreationTime: 1735689600000, MinTaskMember: map[string]int32{"worker": 2},
			NetworkTopology: &abi.NetworkTopology{Mode: "hard", HighestTier: &goldenTier}, AllocatedHyperNode: &goldenLeaf}},
		Tasks: []abi.Task{
			{Namespace: "ns", Name: "pg-0", Job: 0, Status: "Running", Node: 0, Priority: -5,
				Request: abi.Resource{MilliCPU: 2000, Memory: 2 << 30}, InitRequest: abi.Resource{MilliCPU: 2000, Memory: 2 << 30},
				Tolerations: []abi.Toleration{{Key: "gpu", Operator: "Exists", Effect: "NoSchedule"}}, Role: "worker", CreationTime: 1735689601000,
				SpreadConstraints: []abi.SpreadConstraint{{MaxSkew: 3, TopologyKey: "kubernetes.io/hostname", WhenUnsatisfiable: "ScheduleAnyway",
					Selector:   &abi.Selector{Requirements: []abi.NodeSelectorRequirement{{Key: "app", Operator: "In", Values: []string{"pg"}}}},
					MinDomains: 1, NodeAffinityPolicy: "Honor", NodeTaintsPolicy: "Ignore"}},
				SpreadDefaulted: true},
			{Namespace: "ns", Name: "pg-1", Job: 0, Status: "Pending", Node: -1, Priority: -5,
				Request: abi.Resource{MilliCPU: 2000, Memory: 2 << 30}, InitRequest: abi.Resource{MilliCPU: 2000, Memory: 2 << 30},
				NodeSelector: map[string]string{"zone": "a"}, Role: "worker", CreationTime: 1735689601000, PriorityClassName: "low",
				Images: []string{"registry.local/app:1"}, GPUMemory: 2000,
				PodAntiAffinity: &abi.PodAffinity{Preferred: []abi.WeightedPodAffinityTerm{{Weight: 10, Term: abi.PodAffinityTerm{
					Selector: &abi.Selector{Requirements: []abi.NodeSelectorRequirement{}}, NamespaceSelector: &abi.Selector{}, TopologyKey: "zone"}}}},
				SpreadConstraints: []abi.SpreadConstraint{{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: "DoNotSchedule",
					Selector:   &abi.Selector{Requirements: []abi.NodeSelectorRequirement{{Key: "app", Operator: "In", Values: []string{"pg"}}}},
					MinDomains: 1, NodeAffinityPolicy: "Honor", NodeTaintsPolicy: "Ignore"}}},
		},
		Namespaces: map[string]map[string]string{"ns": {"team": "a"}, "kube-system": nil},
		// 1.8: one budget over the job's pods that lists one disrupted
		// pod, one without a selector; one quota.
		DisruptionBudgets: []abi.DisruptionBudget{
			{Namespace: "ns", Name: "pg-budget", DisruptionsAllowed: 1, DisruptedPods: []string{"pg-0"},
				Selector: &abi.Selector{Requirements: []abi.NodeSelectorRequirement{{Key: "app", Operator: "In", Values: []string{"pg"}}}}},
			{Namespace: "ns", Name: "unselective"},
		},
		ResourceQuotas: []abi.ResourceQuota{{Namespace: "ns", Name: "compute",
			Hard: map[string]int64{"requests.cpu": 8000, "requests.memory": 16 << 30 * 1000, "pods": 10000},
			Used: map[string]int64{"requests.cpu": 2000, "pods": 1000}}},
		// 1.9: the cluster top above one leaf that holds the node.
		HyperNodes: []abi.HyperNode{
			{Name: "<cluster-top-hypernode>", Tier: 2, Parent: -1},
			{Name: "leaf-a", Tier: 1, Parent: 0, Nodes: []int32{0}},
		},
		// 1.10: the pending task's bound volume claim and unallocated
		// device claim; the running one's allocated device; the node's
		// CSI limit.
		TaskClaims: []abi.TaskClaims{
			{Task: 0, Devices: []abi.DeviceClaim{{Name: "pg-0-gpu", Devices: []string{"gpu.example.com/n0/gpu-1"}}}},
			{Task: 1, Volumes: []abi.VolumeClaim{{Name: "data-pg-1", Volume: "pv-7", StorageClass: "local"}},
				Devices: []abi.DeviceClaim{{Name: "pg-1-gpu"}}},
		},
		VolumeLimits: []abi.NodeVolumeLimits{{Node: 0, Limits: map[string]int32{"ebs.csi.example.com": 25}}},
	}
}

// goldenKeptView is goldenView with a new pending task, pg-2, before the
// others, which move one handle up.
func goldenKeptView() abi.View {
	v := goldenView()
	v.Tasks = append([]abi.Task{{Namespace: "ns", Name: "pg-2", Job: 0, Status: "Pending", Node: -1, Priority: -5,
		Request: abi.Resource{MilliCPU: 500}, InitRequest: abi.Resource{MilliCPU: 500}}}, v.Tasks...)
	for i := range v.TaskClaims {
		v.TaskClaims[i].Task++
	}
	return v
}

// goldenCacheEvent is request_cache_event's args: a node update whose
// new version adds a reservation, labels, a taint and cordons the node,
// then a running pod's delete.
func goldenCacheEvent() abi.CacheEventArgs {
	alloc := abi.Resource{MilliCPU: 8000, Memory: 32 << 30, Scalars: map[string]int64{"pods": 110}}
	priority := int32(5)
	return abi.CacheEventArgs{Events: []abi.CacheEvent{{
		Type: abi.EventUpdate, Kind: "Node",
		Old: &abi.Object{Name: "n1", Annotations: map[string]string{"caldera.sh/external-reserved": "cpu=6"}, Allocatable: &alloc},
		New: &abi.Object{
			Name: "n1", Labels: map[string]string{"zone": "a"},
			Annotations:   map[string]string{"caldera.sh/external-reserved": "cpu=6,memory=2Gi"},
			Allocatable:   &alloc,
			Taints:        []abi.Taint{{Key: "gpu", Value: "true", Effect: "NoSchedule"}},
			Unschedulable: true,
		},
	}, {
		Type: abi.EventDelete, Kind: "Pod",
		Old: &abi.Object{Name: "p1", Namespace: "ns", Requests: &abi.Resource{MilliCPU: 1000, Memory: 2 << 30, Scalars: map[string]int64{"pods": 1}},
			Priority: &priority, NodeName: "n1", Phase: "Running"},
	}}}
}

// goldenRequests builds each request vector with the host's own encoding
// path.
func goldenRequests(t *testing.T) map[string][]byte {
	t.Helper()
	ev := encodeWire(goldenView(), handles{})
	args := map[string]any{"binpack.weight": 10, "binpack.resources": "nvidia.com/gpu", "ratio": 1.5, "enabled": true}
	open, held, _, _, _ := ev.openArgs(nil, args, false, false)
	held.dirty[listTasks][1] = true
	delta, _, _, _, _ := ev.openArgs(held, args, false, false)
	// The next view of request_session_open's: a new task pg-2 first, then
	// the two held tasks, kept as one run (1.11).
	_, held, _, _, _ = ev.openArgs(nil, args, false, false)
	keep, _, _, _, _ := encodeWire(goldenKeptView(), handles{}).openArgs(held, args, false, true)
	out := map[string][]byte{}
	for name, req := range map[string]abi.Request{
		"request_session_open":       {Args: open},
		"request_session_open_delta": {Args: delta},
		"request_session_open_keep":  {Args: keep},
		"request_predicate_batch":    {Events: []abi.Event{{abi.EventAllocate, 1, 0}, {abi.EventEnqueue, 0, -1}}, Args: abi.BatchArgs{Task: 1, Nodes: []int32{0}}},
		"request_predicate_batch_claims": {Args: abi.BatchArgs{Task: 1, Nodes: []int32{0, 0}, Claims: []*abi.NodeClaims{nil,
			{RuledOut: true, Checks: []abi.ClaimCheck{{Stage: 4, Code: abi.UnschedulableAndUnresolvable, Reasons: []string{"cannot allocate all claims"}}}}}}},
		"request_job_order_keys":     {Args: abi.JobsArgs{Jobs: []int32{0}}},
		"request_allocate":           {Events: []abi.Event{{abi.EventAllocate, 1, 0}}, Args: abi.AllocateArgs{Task: 1, Now: 1735689602000000000}},
		"request_preemptable":        {Events: []abi.Event{{abi.EventEvict, 0, 0}}, Args: abi.CandidatesArgs{Task: 1, Tasks: []int32{0}}},
		"request_session_close":      {},
		"request_evictable":          {Args: abi.EvictableArgs{Kind: abi.EvictGangReclaim, Job: 0, HyperNode: "leaf-a", Tasks: []int32{1, 0}}},
		"request_hypernode_order":    {Args: abi.HyperNodeOrderArgs{Job: 0, Allocated: 1, HyperNodes: []int32{1, 0}}},
		"request_hypernode_gradient": {Args: abi.HyperNodeGradientArgs{Job: 0, Within: 0, Scope: abi.GradientScopeTasks, Purpose: abi.PurposeEvict, Allocated: 1}},
		"request_session_close_fit_errors": {Args: abi.CloseArgs{FitErrors: []abi.TaskFitError{
			{Task: 1, Message: "0/1 nodes are unavailable: 1 Insufficient cpu."},
		}}},
	} {
		b, err := EncodeRequest(req)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = b
	}
	// Event handlers encode their requests by hand.
	out["request_cache_event"] = appendCacheEventRequest(nil, goldenCacheEvent().Events, nil)
	return out
}

func TestGoldenVectors(t *testing.T) {
	for name, b := range goldenRequests(t) {
		path := filepath.Join(goldenDir, name+".msgpack")
		if *update {
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test ./runtime -run TestGoldenVectors -update writes it)", err)
		}
		if !bytes.Equal(b, want) {
			t.Errorf("%s: the host encodes\n%x\nthe golden vector is\n%x", name, b, want)
		}
	}

	// Replies a guest SDK encodes, decoded by the host.
	for _, c := range []struct {
		name string
		out  any
		want any
	}{
		{"reply_node_order_batch", &[]float64{}, &[]float64{37.5, 0, -1}},
		{"reply_predicate_batch", &[]abi.Verdict{}, &[]abi.Verdict{{Code: abi.OK}, {Code: abi.Unschedulable, Reason: "node(s) had untolerated taint {gpu: true}"}}},
		{"reply_job_order_keys", &[]abi.Key{}, &[]abi.Key{{-5}, {1, 0.25}}},
		{"reply_preemptable", &abi.Victims{}, &abi.Victims{Voted: true, Tasks: []int32{0}}},
		{"reply_evictable", &abi.Victims{}, &abi.Victims{Voted: true, Tasks: []int32{1}}},
		{"reply_hypernode_order", &[]float64{}, &[]float64{87.5, 12.5}},
		{"reply_allocate", &abi.AllocateResult{}, &abi.AllocateResult{Annotations: map[string]*string{"example.com/stale": nil, "volcano.sh/gpu-index": &goldenCard}}},
		{"reply_hypernode_gradient", &[][]int32{}, &[][]int32{{1}, {0}}},
		{"reply_job_valid", &abi.ValidateResult{}, &abi.ValidateResult{Reason: "NotEnoughPods", Message: "1/2 tasks valid"}},
		{"reply_victim_tasks", &[]int32{}, &[]int32{0, 127, 128, 255, 256, 32767, 32768}},
		{"reply_cache_event", &[]abi.CacheEventResult{}, &[]abi.CacheEventResult{
			{Action: abi.ActionAdjust, Allocatable: &abi.Resource{MilliCPU: 2000, Memory: 30 << 30, Scalars: map[string]int64{"pods": 110}}},
			{Action: abi.ActionPass},
		}},
		{"reply_session_close", &abi.CloseResult{}, &abi.CloseResult{Conditions: []abi.Condition{{Job: 0, Type: "Unschedulable", Status: "True", Reason: "NotEnoughResources", Message: "1/2 tasks in gang unschedulable"}}}},
		{"reply_pre_predicate_rules", &abi.PreVerdict{}, &abi.PreVerdict{Rules: &abi.DomainRules{RuleClass: 2, Rules: []abi.DomainRule{
			{Key: "zone", Values: []string{"a", "b"}, Fail: abi.FailMissing | abi.FailListed},
			{Key: "kubernetes.io/hostname", Values: []string{}, Fail: abi.FailMissing},
		}}}},
	} {
		raw, err := os.ReadFile(filepath.Join(goldenDir, c.name+".msgpack"))
		if err != nil {
			t.Fatal(err)
		}
		code, msg, err := DecodeReply(raw, c.out)
		if err != nil || code != abi.OK {
			t.Errorf("%s: code %d %q, %v", c.name, code, msg, err)
			continue
		}
		if !reflect.DeepEqual(c.out, c.want) {
			t.Errorf("%s: decoded %+v, want %+v", c.name, c.out, c.want)
		}
	}
	// An error reply carries no result.
	raw, err := os.ReadFile(filepath.Join(goldenDir, "reply_error.msgpack"))
	if err != nil {
		t.Fatal(err)
	}
	if code, msg, err := DecodeReply(raw, nil); err != nil || code != abi.Error || msg != `argument "binpack.weight": expected an integer, got string ten` {
		t.Errorf("reply_error: code %d %q, %v", code, msg, err)
	}
}

// DecodeReply's short path must agree with the reflection decoder on every
// reply it takes, and leave the others to it.
func TestShortReplyAgreesWithReflection(t *testing.T) {
	long := strings.Repeat("m", 40) // str8: not the short path
	for _, raw := range [][]byte{
		{0x93, 0x00, 0xa0, 0xc3}, {0x93, 0x00, 0xa0, 0xc2}, {0x93, 0x00, 0xa0, 0xc0},
		{0x93, 0x00, 0xa0, 0x05}, {0x93, 0x00, 0xa0, 0xff}, {0x93, 0x00, 0xa0, 0xe0},
		{0x93, 0x00, 0xa0, 0xd2, 0xff, 0xff, 0xff, 0xfe}, {0x93, 0x00, 0xa0, 0xc3, 0xc3},
		append([]byte{0x93, 0x01, 0xa4}, "oops\xc0"...), append(append([]byte{0x93, 0x02, 0xd9, 40}, long...), 0xc0),
		{0x93, 0x41, 0xa2, 'n', 'o', 0xc0}, {0x93, 0xcc, 0x41, 0xa0, 0xc0}, {0x92, 0x00, 0xa0}, {0x93, 0x00},
		// Failures whose result is malformed: the reply is refused.
		{0x93, 0x01, 0xa0, 0xd2}, {0x93, 0x01, 0xa0, 0xc1},
	} {
		for _, mk := range []func() any{func() any { return new(bool) }, func() any { return new(int32) }} {
			fast, slow := mk(), mk()
			fc, fm, ferr := DecodeReply(raw, fast)
			sc, sm, serr := decodeReplyReflect(raw, slow)
			if fc != sc || fm != sm || (ferr == nil) != (serr == nil) || !reflect.DeepEqual(fast, slow) {
				t.Errorf("%x into %T: short path %d %q %v %v, reflection %d %q %v %v", raw, fast, fc, fm, ferr, reflect.ValueOf(fast).Elem(), sc, sm, serr, reflect.ValueOf(slow).Elem())
			}
		}
	}
}
