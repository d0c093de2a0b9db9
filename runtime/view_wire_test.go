package runtime

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/caldera-scheduler/caldera/abi"
)

// The hand-written view encoders must write, object by object, exactly
// what msgpack/v5 makes of the abi types with sorted map keys (the bytes
// golden vectors and delta digests were made of), for every shape: each
// optional field present or not, strings, maps and arrays across the
// limits of msgpack's short forms, negative numbers.
func TestViewObjectsMatchReflection(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.SetSortMapKeys(true)
	check := func(i int, obj any, got []byte) {
		t.Helper()
		buf.Reset()
		if err := enc.Encode(obj); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got[len("reused"):], buf.Bytes()) {
			t.Fatalf("case %d, %T: hand-written\n%x\nreflection\n%x\nof %+v", i, obj, got[len("reused"):], buf.Bytes(), obj)
		}
	}
	for i := range 400 {
		n := randNode(rng)
		check(i, n, appendNode([]byte("reused"), n))
		q := randQueue(rng)
		check(i, q, appendQueue([]byte("reused"), q))
		j := randJob(rng)
		check(i, j, appendJob([]byte("reused"), j))
		tk := randTask(rng)
		check(i, tk, appendTask([]byte("reused"), tk))
	}
}

func randValue(rng *rand.Rand) abi.Resource {
	if r := randResource(rng); r != nil {
		return *r
	}
	return abi.Resource{}
}

func randKubeRequest(rng *rand.Rand) abi.KubeRequest {
	var r abi.KubeRequest
	for _, f := range []*int64{&r.MilliCPU, &r.Memory, &r.GPU, &r.NonZeroMilliCPU, &r.NonZeroMemory} {
		if rng.IntN(2) == 0 {
			*f = rng.Int64N(1<<40) - 1<<20
		}
	}
	return r
}

func randHostPorts(rng *rand.Rand) []abi.HostPort {
	var out []abi.HostPort
	for range rng.IntN(3) * rng.IntN(8) {
		out = append(out, abi.HostPort{IP: randString(rng), Port: rng.Int32N(70000) - 10, Protocol: randString(rng)})
	}
	if rng.IntN(10) == 0 {
		out = []abi.HostPort{}
	}
	return out
}

func randInt32(rng *rand.Rand) int32 {
	if rng.IntN(3) == 0 {
		return 0
	}
	return rng.Int32() - rng.Int32()
}

func randNode(rng *rand.Rand) *abi.Node {
	n := &abi.Node{
		Name: randString(rng), Labels: randMap(rng), Annotations: randMap(rng), Unschedulable: rng.IntN(2) == 0,
		Allocatable: randValue(rng), Idle: randValue(rng), Used: randValue(rng), Releasing: randValue(rng), Pipelined: randValue(rng),
		Pods: randInt32(rng), KubeRequested: randKubeRequest(rng), HostPorts: randHostPorts(rng),
	}
	for range rng.IntN(2) * rng.IntN(5) {
		n.Images = append(n.Images, abi.Image{Names: randStrings(rng), Size: rng.Int64() - rng.Int64()})
	}
	for range rng.IntN(2) * rng.IntN(5) {
		n.Others = append(n.Others, abi.Pod{Namespace: randString(rng), Name: randString(rng), Labels: randMap(rng),
			Terminating: rng.IntN(2) == 0, PodAffinity: randPodAffinity(rng), PodAntiAffinity: randPodAffinity(rng)})
	}
	for range rng.IntN(3) * rng.IntN(10) {
		n.Taints = append(n.Taints, abi.Taint{Key: randString(rng), Value: randString(rng), Effect: randString(rng)})
	}
	for range rng.IntN(2) * rng.IntN(9) {
		n.GPUs = append(n.GPUs, abi.GPU{ID: randInt32(rng), Memory: rng.Int64() - rng.Int64(), Used: rng.Int64() - rng.Int64(), Holders: randInt32(rng), Unhealthy: rng.IntN(3) == 0})
	}
	return n
}

func randQueue(rng *rand.Rand) *abi.Queue {
	q := &abi.Queue{Name: randString(rng), Weight: randInt32(rng), Capability: randValue(rng), Guarantee: randValue(rng),
		State: randString(rng), Annotations: randMap(rng), Priority: randInt32(rng), Parent: randString(rng)}
	if rng.IntN(2) == 0 {
		d := randValue(rng)
		q.Deserved = &d
	}
	if rng.IntN(3) != 0 {
		r := rng.IntN(2) == 0
		q.Reclaimable = &r
	}
	return q
}

func randJob(rng *rand.Rand) *abi.Job {
	j := &abi.Job{Namespace: randString(rng), Name: randString(rng), Queue: randInt32(rng), Priority: randInt32(rng),
		MinAvailable: randInt32(rng), MinResources: randValue(rng), Phase: randString(rng),
		Labels: randMap(rng), Annotations: randMap(rng), CreationTime: rng.Int64() - rng.Int64()}
	switch rng.IntN(3) {
	case 0:
		j.MinTaskMember = abi.RoleCounts{}
	case 1:
		j.MinTaskMember = abi.RoleCounts{}
		for range rng.IntN(20) {
			j.MinTaskMember[fmt.Sprintf("role%d", rng.IntN(30))] = randInt32(rng)
		}
	}
	// 1.9: a network topology with or without its tier, and an allocated
	// hypernode, each sometimes absent.
	if rng.IntN(2) == 0 {
		j.NetworkTopology = &abi.NetworkTopology{Mode: randString(rng)}
		if rng.IntN(2) == 0 {
			tier := randInt32(rng)
			j.NetworkTopology.HighestTier = &tier
		}
	}
	if rng.IntN(2) == 0 {
		hn := randInt32(rng)
		j.AllocatedHyperNode = &hn
	}
	return j
}

func randRequirements(rng *rand.Rand) []abi.NodeSelectorRequirement {
	var out []abi.NodeSelectorRequirement
	for range rng.IntN(3) * rng.IntN(6) {
		r := abi.NodeSelectorRequirement{Key: randString(rng), Operator: randString(rng)}
		for range rng.IntN(3) * rng.IntN(8) {
			r.Values = append(r.Values, randString(rng))
		}
		out = append(out, r)
	}
	return out
}

func randTerm(rng *rand.Rand) abi.NodeSelectorTerm {
	return abi.NodeSelectorTerm{MatchExpressions: randRequirements(rng), MatchFields: randRequirements(rng), Invalid: rng.IntN(4) == 0}
}

func randAffinity(rng *rand.Rand) *abi.NodeAffinity {
	if rng.IntN(3) == 0 {
		return nil
	}
	a := &abi.NodeAffinity{}
	switch rng.IntN(3) {
	case 0:
		a.Required = &abi.NodeSelector{}
	case 1:
		a.Required = &abi.NodeSelector{Terms: []abi.NodeSelectorTerm{}}
		for range rng.IntN(4) {
			a.Required.Terms = append(a.Required.Terms, randTerm(rng))
		}
	}
	for range rng.IntN(2) * rng.IntN(5) {
		a.Preferred = append(a.Preferred, abi.PreferredTerm{Weight: randInt32(rng), Term: randTerm(rng)})
	}
	return a
}

func randTask(rng *rand.Rand) *abi.Task {
	t := &abi.Task{Namespace: randString(rng), Name: randString(rng), Job: randInt32(rng), Status: randString(rng),
		Node: randInt32(rng), Priority: randInt32(rng), Request: randValue(rng), InitRequest: randValue(rng),
		Labels: randMap(rng), Annotations: randMap(rng), NodeSelector: randMap(rng), Preemptable: rng.IntN(2) == 0,
		Role: randString(rng), CreationTime: rng.Int64() - rng.Int64(), BestEffort: rng.IntN(2) == 0,
		NodeAffinity: randAffinity(rng), HostPorts: randHostPorts(rng), KubeRequest: randKubeRequest(rng)}
	if rng.IntN(2) == 0 {
		t.PriorityClassName = randString(rng)
	}
	t.Terminating, t.SpreadDefaulted, t.Images = rng.IntN(2) == 0, rng.IntN(2) == 0, randStrings(rng)
	t.PodAffinity, t.PodAntiAffinity = randPodAffinity(rng), randPodAffinity(rng)
	if rng.IntN(3) == 0 {
		t.AffinityError = randString(rng)
	}
	for range rng.IntN(2) * rng.IntN(4) {
		c := abi.SpreadConstraint{MaxSkew: randInt32(rng), TopologyKey: randString(rng), WhenUnsatisfiable: randString(rng),
			Selector: randSelector(rng), MinDomains: randInt32(rng), NodeAffinityPolicy: randString(rng), NodeTaintsPolicy: randString(rng)}
		if rng.IntN(4) == 0 {
			c.Error = randString(rng)
		}
		t.SpreadConstraints = append(t.SpreadConstraints, c)
	}
	for range rng.IntN(3) * rng.IntN(8) {
		t.Tolerations = append(t.Tolerations, abi.Toleration{Key: randString(rng), Operator: randString(rng), Value: randString(rng), Effect: randString(rng)})
	}
	if rng.IntN(3) == 0 {
		t.GPUMemory = rng.Int64() - rng.Int64()
	}
	if rng.IntN(3) == 0 {
		t.GPUNumber = rng.Int64N(9)
	}
	return t
}

func randStrings(rng *rand.Rand) []string {
	var out []string
	for range rng.IntN(3) * rng.IntN(8) {
		out = append(out, randString(rng))
	}
	return out
}

// randSelector is nil, a selector without requirements (nil or empty
// list) or one with some.
func randSelector(rng *rand.Rand) *abi.Selector {
	switch rng.IntN(4) {
	case 0:
		return nil
	case 1:
		return &abi.Selector{}
	case 2:
		return &abi.Selector{Requirements: []abi.NodeSelectorRequirement{}}
	}
	return &abi.Selector{Requirements: randRequirements(rng)}
}

func randAffinityTerm(rng *rand.Rand) abi.PodAffinityTerm {
	return abi.PodAffinityTerm{Selector: randSelector(rng), Namespaces: randStrings(rng),
		NamespaceSelector: randSelector(rng), TopologyKey: randString(rng)}
}

func randPodAffinity(rng *rand.Rand) *abi.PodAffinity {
	if rng.IntN(3) == 0 {
		return nil
	}
	a := &abi.PodAffinity{}
	for range rng.IntN(2) * rng.IntN(4) {
		a.Required = append(a.Required, randAffinityTerm(rng))
	}
	for range rng.IntN(2) * rng.IntN(4) {
		a.Preferred = append(a.Preferred, abi.WeightedPodAffinityTerm{Weight: randInt32(rng), Term: randAffinityTerm(rng)})
	}
	return a
}

// encodeWire encodes a view built by hand, object by object with the
// session view's encoders: the golden vectors and BenchmarkEncodeView.
func encodeWire(view abi.View, h handles) *encodedView {
	ev := &encodedView{handles: h, plugins: view.Plugins, namespaces: encodeNamespaces(view.Namespaces),
		budgets: encodeBudgets(view.DisruptionBudgets), quotas: encodeQuotas(view.ResourceQuotas), hyperNodes: encodeHyperNodes(view.HyperNodes)}
	ev.taskClaims, ev.volumeLimits = encodeClaimLists(view.TaskClaims, view.VolumeLimits)
	var e viewEncoder
	for i := range view.Nodes {
		n := &view.Nodes[i]
		ev.add(listNodes, e.object(n.Name, func(b []byte) []byte { return appendNode(b, n) }))
	}
	for i := range view.Queues {
		ev.add(listQueues, e.encodeQueue(&view.Queues[i]))
	}
	for i := range view.Jobs {
		ev.add(listJobs, e.encodeJob(&view.Jobs[i]))
	}
	for i := range view.Tasks {
		t := &view.Tasks[i]
		ev.add(listTasks, e.object(t.Namespace+"/"+t.Name, func(b []byte) []byte { return appendTask(b, t) }))
	}
	return ev
}
