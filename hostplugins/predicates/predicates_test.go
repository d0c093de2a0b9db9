package predicates

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

func config(args string) string {
	s := `actions: allocate
tiers:
- plugins:
  - name: predicates
`
	if args != "" {
		s += "    arguments:\n" + args
	}
	return s
}

var (
	small    = rl("cpu", "1", "memory", "1Gi")
	roomy    = rl("cpu", "4", "memory", "8Gi", "pods", "10")
	gpuTaint = v1.Taint{Key: "gpu", Value: "true", Effect: v1.TaintEffectNoSchedule}
)

func withSelector(p *v1.Pod, kv ...string) *v1.Pod {
	p.Spec.NodeSelector = map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		p.Spec.NodeSelector[kv[i]] = kv[i+1]
	}
	return p
}

func withTolerations(p *v1.Pod, ts ...v1.Toleration) *v1.Pod {
	p.Spec.Tolerations = ts
	return p
}

func withRequiredAffinity(p *v1.Pod, terms ...v1.NodeSelectorTerm) *v1.Pod {
	p.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: terms},
	}}
	return p
}

func withHostPort(p *v1.Pod, port int32) *v1.Pod {
	p.Spec.Containers[0].Ports = []v1.ContainerPort{{ContainerPort: 80, HostPort: port}}
	return p
}

func TestPredicate(t *testing.T) {
	tests := []struct {
		name     string
		args     string
		node     *v1.Node
		existing []*v1.Pod
		pod      *v1.Pod
		code     framework.Code // Success when the node fits
		reasons  []string
	}{
		{name: "fits", node: node("n1", roomy), pod: pod("p", "", small)},
		{name: "cordoned node", node: cordoned(node("n1", roomy)), pod: pod("p", "", small),
			code: framework.UnschedulableAndUnresolvable, reasons: []string{ReasonUnschedulable}},
		{name: "cordoned node, pod tolerates the unschedulable taint", node: cordoned(node("n1", roomy)),
			pod: withTolerations(pod("p", "", small), v1.Toleration{Key: v1.TaintNodeUnschedulable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule})},
		{name: "cordoned node, pod tolerates everything", node: cordoned(node("n1", roomy)),
			pod: withTolerations(pod("p", "", small), v1.Toleration{Operator: v1.TolerationOpExists})},
		{name: "selector mismatch", node: withLabels(node("n1", roomy), "zone", "a"), pod: withSelector(pod("p", "", small), "zone", "b"),
			code: framework.UnschedulableAndUnresolvable, reasons: []string{ReasonNodeAffinity}},
		{name: "selector match", node: withLabels(node("n1", roomy), "zone", "a"), pod: withSelector(pod("p", "", small), "zone", "a")},
		{name: "selector mismatch ignored when NodeAffinityEnable is false", args: "      predicate.NodeAffinityEnable: false\n",
			node: withLabels(node("n1", roomy), "zone", "a"), pod: withSelector(pod("p", "", small), "zone", "b")},
		{name: "required affinity mismatch",
			node: withLabels(node("n1", roomy), "zone", "a"),
			pod: withRequiredAffinity(pod("p", "", small), v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{
				{Key: "zone", Operator: v1.NodeSelectorOpIn, Values: []string{"b", "c"}}}}),
			code: framework.UnschedulableAndUnresolvable, reasons: []string{ReasonNodeAffinity}},
		{name: "required affinity: terms are ORed",
			node: withLabels(node("n1", roomy), "zone", "a"),
			pod: withRequiredAffinity(pod("p", "", small),
				v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "zone", Operator: v1.NodeSelectorOpIn, Values: []string{"b"}}}},
				v1.NodeSelectorTerm{MatchFields: []v1.NodeSelectorRequirement{{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{"n1"}}}})},
		{name: "untolerated NoSchedule taint", node: withTaints(node("n1", roomy), gpuTaint), pod: pod("p", "", small),
			code: framework.UnschedulableAndUnresolvable, reasons: []string{"node(s) had untolerated taint {gpu: true}"}},
		{name: "first untolerated of several taints is named",
			node: withTaints(node("n1", roomy),
				v1.Taint{Key: "soft", Effect: v1.TaintEffectPreferNoSchedule},
				gpuTaint,
				v1.Taint{Key: "drain", Value: "now", Effect: v1.TaintEffectNoExecute}),
			pod:  withTolerations(pod("p", "", small), v1.Toleration{Key: "gpu", Operator: v1.TolerationOpEqual, Value: "true"}),
			code: framework.UnschedulableAndUnresolvable, reasons: []string{"node(s) had untolerated taint {drain: now}"}},
		{name: "PreferNoSchedule taint does not filter", node: withTaints(node("n1", roomy), v1.Taint{Key: "soft", Effect: v1.TaintEffectPreferNoSchedule}), pod: pod("p", "", small)},
		{name: "taint ignored when TaintTolerationEnable is false", args: "      predicate.TaintTolerationEnable: false\n",
			node: withTaints(node("n1", roomy), gpuTaint), pod: pod("p", "", small)},
		{name: "unschedulable is checked before affinity and taints",
			node: withTaints(withLabels(cordoned(node("n1", roomy)), "zone", "a"), gpuTaint), pod: withSelector(pod("p", "", small), "zone", "b"),
			code: framework.UnschedulableAndUnresolvable, reasons: []string{ReasonUnschedulable}},
		{name: "insufficient cpu", node: node("n1", roomy), existing: []*v1.Pod{running(pod("e1", "n1", rl("cpu", "3500m")))}, pod: pod("p", "", small),
			code: framework.Unschedulable, reasons: []string{"Insufficient cpu"}},
		{name: "insufficient memory", node: node("n1", roomy), existing: []*v1.Pod{running(pod("e1", "n1", rl("memory", "7.5Gi")))}, pod: pod("p", "", small),
			code: framework.Unschedulable, reasons: []string{"Insufficient memory"}},
		{name: "insufficient extended resource the node lacks", node: node("n1", roomy), pod: pod("p", "", rl("cpu", "1", "nvidia.com/gpu", "1")),
			code: framework.Unschedulable, reasons: []string{"Insufficient nvidia.com/gpu"}},
		{name: "exact fit", node: node("n1", roomy), existing: []*v1.Pod{running(pod("e1", "n1", rl("cpu", "3", "memory", "7Gi")))}, pod: pod("p", "", small)},
		{name: "pod slots used up: the allocate action's resource check speaks first", node: node("n1", rl("cpu", "4", "memory", "8Gi", "pods", "2")),
			existing: []*v1.Pod{running(pod("e1", "n1", nil)), running(pod("e2", "n1", nil))}, pod: pod("p", "", nil),
			code: framework.Unschedulable, reasons: []string{"Insufficient pods"}},
		{name: "node without a pods allocatable takes no pod", node: node("n1", rl("cpu", "4", "memory", "8Gi")), pod: pod("p", "", nil),
			code: framework.Unschedulable, reasons: []string{"Insufficient pods"}},
		{name: "a releasing pod frees its resources but still counts as a pod", node: node("n1", rl("cpu", "4", "memory", "8Gi", "pods", "1")),
			existing: []*v1.Pod{releasing(pod("e1", "n1", nil))}, pod: pod("p", "", nil),
			code: framework.Unschedulable, reasons: []string{ReasonPodNumberExceeded}},
		{name: "pod count and taint: both reasons, unresolvable", node: withTaints(node("n1", rl("cpu", "4", "memory", "8Gi", "pods", "1")), gpuTaint),
			existing: []*v1.Pod{running(pod("e1", "n1", nil))}, pod: pod("p", "", nil),
			code: framework.UnschedulableAndUnresolvable, reasons: []string{ReasonPodNumberExceeded, "node(s) had untolerated taint {gpu: true}"}},
		{name: "resource shortage on a tainted node is unresolvable", node: withTaints(node("n1", roomy), gpuTaint), pod: pod("p", "", rl("cpu", "64")),
			code: framework.UnschedulableAndUnresolvable, reasons: []string{"node(s) had untolerated taint {gpu: true}"}},
		{name: "host port taken", node: node("n1", roomy), existing: []*v1.Pod{running(withHostPort(pod("e1", "n1", nil), 8080))}, pod: withHostPort(pod("p", "", nil), 8080),
			code: framework.Unschedulable, reasons: []string{ReasonNodePorts}},
		{name: "other host port free", node: node("n1", roomy), existing: []*v1.Pod{running(withHostPort(pod("e1", "n1", nil), 8080))}, pod: withHostPort(pod("p", "", nil), 8081)},
		{name: "host port ignored when NodePortsEnable is false", args: "      predicate.NodePortsEnable: false\n",
			node: node("n1", roomy), existing: []*v1.Pod{running(withHostPort(pod("e1", "n1", nil), 8080))}, pod: withHostPort(pod("p", "", nil), 8080)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ssn := openSession(t, config(tc.args), []*v1.Node{tc.node}, append(tc.existing, tc.pod))
			task := taskByName(ssn, tc.pod.Name)
			st := ssn.PredicateFn(task, ssn.Nodes[tc.node.Name])
			if tc.code == framework.Success {
				if !st.IsSuccess() {
					t.Fatalf("node rejected: %s %v", st.Code, st.Reasons)
				}
				return
			}
			if st.IsSuccess() {
				t.Fatalf("node accepted, want %s %v", tc.code, tc.reasons)
			}
			if st.Code != tc.code || !reflect.DeepEqual(st.Reasons, tc.reasons) || st.Plugin != Name {
				t.Fatalf("got %s %q from %q, want %s %q", st.Code, st.Reasons, st.Plugin, tc.code, tc.reasons)
			}
		})
	}
}

func TestPrePredicateRejectsConflictingNodeNames(t *testing.T) {
	byName := func(names ...string) v1.NodeSelectorTerm {
		return v1.NodeSelectorTerm{MatchFields: []v1.NodeSelectorRequirement{{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: names}}}
	}
	twoReqs := byName("n1")
	twoReqs.MatchFields = append(twoReqs.MatchFields, v1.NodeSelectorRequirement{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{"n2"}})
	tests := []struct {
		name   string
		pod    *v1.Pod
		reject bool
	}{
		{"no affinity", pod("p", "", small), false},
		{"names one node", withRequiredAffinity(pod("p", "", small), byName("n1")), false},
		{"two requirements in a term name different nodes", withRequiredAffinity(pod("p", "", small), twoReqs), true},
		{"another term has no name restriction", withRequiredAffinity(pod("p", "", small), twoReqs,
			v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "zone", Operator: v1.NodeSelectorOpExists}}}), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ssn := openSession(t, config(""), []*v1.Node{node("n1", roomy)}, []*v1.Pod{tc.pod})
			st := ssn.PrePredicateFn(taskByName(ssn, "p"))
			if tc.reject != !st.IsSuccess() {
				t.Fatalf("PrePredicate = %v, want reject %v", st, tc.reject)
			}
			if tc.reject && (st.Code != framework.UnschedulableAndUnresolvable || st.Message() != ReasonAffinityConflict) {
				t.Fatalf("got %s %q", st.Code, st.Message())
			}
		})
	}
}

// Volcano stops counting an evicted pod as one of the node's pods, although it
// keeps its resources until it is gone; undoing the eviction counts it again.
func TestPodCountFollowsEvictions(t *testing.T) {
	n := node("n1", rl("cpu", "4", "memory", "8Gi", "pods", "1"))
	ssn := openSession(t, config(""), []*v1.Node{n}, []*v1.Pod{running(pod("victim", "n1", nil)), pod("p", "", nil)})
	task, victim, ni := taskByName(ssn, "p"), taskByName(ssn, "victim"), ssn.Nodes["n1"]
	if st := ssn.PredicateFn(task, ni); st.IsSuccess() || st.Reasons[0] != "Insufficient pods" {
		t.Fatalf("before eviction: %v, want the node full", st)
	}
	stmt := framework.NewStatement(ssn)
	if err := stmt.Evict(victim, "test"); err != nil {
		t.Fatal(err)
	}
	if st := ssn.PredicateFn(task, ni); !st.IsSuccess() {
		t.Fatalf("after eviction: %v, want a fit", st)
	}
	stmt.Discard()
	if st := ssn.PredicateFn(task, ni); st.IsSuccess() {
		t.Fatal("after discarding the eviction the node must be full again")
	}
	// A placement in the session takes the last slot.
	ssn2 := openSession(t, config(""), []*v1.Node{node("n1", rl("cpu", "4", "memory", "8Gi", "pods", "1"))}, []*v1.Pod{pod("a", "", nil), pod("b", "", nil)})
	a, b, n2 := taskByName(ssn2, "a"), taskByName(ssn2, "b"), ssn2.Nodes["n1"]
	if err := framework.NewStatement(ssn2).Allocate(a, n2); err != nil {
		t.Fatal(err)
	}
	if st := ssn2.PredicateFn(b, n2); st.IsSuccess() {
		t.Fatal("the slot taken in the session must count")
	}
}

func TestArguments(t *testing.T) {
	a, err := ParseArgs(nil)
	if err != nil || !a.NodeAffinity || !a.NodePorts || !a.TaintToleration || !a.PodAffinity || !a.VolumeBinding || a.Cache {
		t.Fatalf("defaults: %+v %v", a, err)
	}
	// Arguments of filters we do not implement, and of their options, load.
	if _, err := New(framework.Arguments{
		"predicate.PodAffinityEnable": true, "predicate.VolumeBindingEnable": "false", "predicate.CacheEnable": true,
		"volumebinding.bindTimeoutSeconds": 600, "volumebinding.shape": []any{map[string]any{"utilization": 0, "score": 10}},
		"predicate.GPUSharingEnable": true,
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := New(framework.Arguments{"predicate.NodeAffinityEnable": 3}); err == nil || !strings.Contains(err.Error(), NodeAffinityEnableKey) {
		t.Fatalf("wrong type: %v, want an error naming the key", err)
	}
}

// reference is the uncached computation, written against the pod directly.
func reference(p *Plugin, task *api.TaskInfo, node *api.NodeInfo) *framework.Status {
	ns := newNodeState(-1, node)
	ns.evicted.Store(p.nodeByName[node.Name].evicted.Load())
	v := newTemplate(task.Pod, 0).evaluate(ns, &p.args)
	tooMany := p.podCount(ns) >= node.Allocatable.MaxTaskNum
	if v != pass {
		r := ns.reasons(v)
		if tooMany {
			r = append([]string{ReasonPodNumberExceeded}, r...)
		}
		return &framework.Status{Code: framework.UnschedulableAndUnresolvable, Reasons: r}
	}
	if !task.InitResreq.LessEqual(node.FutureIdle(), api.Zero) {
		return framework.NewStatus(framework.Unschedulable, "Insufficient "+task.InitResreq.InsufficientDimensions(node.FutureIdle())[0])
	}
	if tooMany {
		return framework.NewStatus(framework.Unschedulable, ReasonPodNumberExceeded)
	}
	return nil
}

// The per-template cache must answer exactly as the uncached filters, for
// every pod of every template on every node, however often it is asked.
func TestCacheMatchesUncached(t *testing.T) {
	var nodes []*v1.Node
	for i := 0; i < 12; i++ {
		n := withLabels(node(fmt.Sprintf("n%d", i), rl("cpu", "4", "memory", "8Gi", "pods", "3")), "zone", fmt.Sprint("z", i%3))
		if i%4 == 1 {
			n = withTaints(n, gpuTaint)
		}
		if i%5 == 2 {
			n = cordoned(n)
		}
		nodes = append(nodes, n)
	}
	var pods []*v1.Pod
	for i := 0; i < 40; i++ {
		p := pod(fmt.Sprint("p", i), "", rl("cpu", fmt.Sprint(1+i%3), "memory", "1Gi"))
		switch i % 4 {
		case 1:
			withSelector(p, "zone", fmt.Sprint("z", i%3))
		case 2:
			withTolerations(p, v1.Toleration{Key: "gpu", Operator: v1.TolerationOpExists})
		case 3:
			withRequiredAffinity(p, v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "zone", Operator: v1.NodeSelectorOpNotIn, Values: []string{"z1"}}}})
		}
		pods = append(pods, p)
	}
	for i := 0; i < 6; i++ {
		pods = append(pods, running(pod(fmt.Sprint("e", i), fmt.Sprint("n", i), rl("cpu", "2"))))
	}
	ssn := openSession(t, config(""), nodes, pods)
	p := ssn.Plugins()[0].(*Plugin)
	// No constraints; three selectors; one toleration; one affinity.
	if len(p.tplByKey) != 6 {
		t.Errorf("%d templates, want 6: pods with equal scheduling fields must share one", len(p.tplByKey))
	}
	for round := 0; round < 2; round++ {
		for _, j := range ssn.Jobs {
			for _, task := range j.TaskStatusIndex[api.Pending] {
				for _, n := range ssn.NodeList {
					got, want := p.Predicate(task, n), reference(p, task, n)
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("round %d, %s on %s: cached %+v, uncached %+v", round, task.Name, n.Name, got, want)
					}
				}
			}
		}
	}
}

// Volcano filters nodes on many goroutines at once; the lazily filled cache
// must stay correct (run with -race).
func TestConcurrentPredicate(t *testing.T) {
	var nodes []*v1.Node
	for i := 0; i < 50; i++ {
		n := withLabels(node(fmt.Sprint("n", i), roomy), "zone", fmt.Sprint("z", i%2))
		if i%3 == 0 {
			n = withTaints(n, gpuTaint)
		}
		nodes = append(nodes, n)
	}
	pods := []*v1.Pod{withSelector(pod("p0", "", small), "zone", "z1"), withSelector(pod("p1", "", small), "zone", "z1")}
	ssn := openSession(t, config(""), nodes, pods)
	p := ssn.Plugins()[0].(*Plugin)
	tasks := []*api.TaskInfo{taskByName(ssn, "p0"), taskByName(ssn, "p1")}
	var wg sync.WaitGroup
	errs := make(chan string, 16)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for _, n := range ssn.NodeList {
				task := tasks[g%2]
				if got, want := p.Predicate(task, n), reference(p, task, n); !reflect.DeepEqual(got, want) {
					errs <- fmt.Sprintf("%s on %s: %v, want %v", task.Name, n.Name, got, want)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// Keys the plugin does not read load, and are named in the log once.
func TestUnreadArgumentsAreLogged(t *testing.T) {
	var buf bytes.Buffer
	klog.LogToStderr(false)
	klog.SetOutput(&buf)
	defer func() {
		klog.SetOutput(io.Discard)
		klog.LogToStderr(true)
	}()
	if _, err := New(framework.Arguments{"predicate.GPUNumberEnable": true, "predicate.NodeAffinityEnabled": true,
		"volumebinding.bindTimeoutSeconds": 600, "predicate.CacheEnable": true}); err != nil {
		t.Fatal(err)
	}
	klog.Flush()
	logged := buf.String()
	for _, want := range []string{
		`argument "predicate.GPUNumberEnable" is read neither by Volcano v1.15's predicates nor by Caldera; it has no effect; Volcano v1.15 reads it as deviceshare.GPUNumberEnable`,
		`argument "predicate.NodeAffinityEnabled" is read neither`,
	} {
		if !strings.Contains(logged, want) {
			t.Errorf("log lacks %q:\n%s", want, logged)
		}
	}
	for _, read := range []string{"volumebinding.bindTimeoutSeconds", "predicate.CacheEnable"} {
		if strings.Contains(logged, read) {
			t.Errorf("a key the plugin reads was logged: %s\n%s", read, logged)
		}
	}
}

// A node that passes costs no allocation: Predicate runs for every pod and
// node a search visits (millions a session at 5,000 nodes), and a reason
// buffer moved to the heap once cost 1.8 GB over three such sessions.
func TestPassingNodeAllocatesNothing(t *testing.T) {
	ssn := openSession(t, config(""), []*v1.Node{node("n0", roomy)}, []*v1.Pod{pod("p0", "", small)})
	p := ssn.Plugins()[0].(*Plugin)
	task, n := taskByName(ssn, "p0"), ssn.NodeList[0]
	if st := p.Predicate(task, n); st != nil {
		t.Fatalf("p0 on n0: %v, want a pass", st)
	}
	if allocs := testing.AllocsPerRun(100, func() { p.Predicate(task, n) }); allocs != 0 {
		t.Errorf("Predicate on a passing node allocates %v times a call, want 0", allocs)
	}
}
