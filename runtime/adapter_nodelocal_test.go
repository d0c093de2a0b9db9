package runtime

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/conf"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
	"github.com/caldera-scheduler/caldera/scheduler/metrics"
)

// builtPort loads a port from make plugins, closed when the test ends;
// without it the test is skipped, unless CALDERA_REQUIRE_PLUGINS is set.
func builtPort(t *testing.T, name string) *Plugin {
	t.Helper()
	path := filepath.Join("..", "build", "plugins", name+".wasm")
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("CALDERA_REQUIRE_PLUGINS") != "" {
			t.Fatalf("%s is not built: %v", path, err)
		}
		t.Skipf("%s is not built (make plugins)", path)
	}
	p, err := Load(context.Background(), path, Options{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	return p
}

// gangOnSmallNodes is three 1-CPU nodes and one job of three pending pods
// of one shape, 600m each: a node that takes one has no room for another.
func gangOnSmallNodes() *api.ClusterInfo {
	ci := api.NewClusterInfo()
	rl := v1.ResourceList{v1.ResourceCPU: resource.MustParse("1"), v1.ResourceMemory: resource.MustParse("4Gi"), v1.ResourcePods: resource.MustParse("110")}
	for i := range 3 {
		name := fmt.Sprintf("n%d", i)
		ci.Nodes[name] = api.NewNodeInfo(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: v1.NodeStatus{Capacity: rl, Allocatable: rl}})
		ci.NodeList = append(ci.NodeList, name)
	}
	job := api.NewJobInfo("ns/pg")
	job.SetPodGroup(&v1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pg"}, Spec: v1beta1.PodGroupSpec{MinMember: 1}})
	ci.Jobs[job.UID] = job
	for i := range 3 {
		job.AddTaskInfo(api.NewTaskInfo(gangPod(fmt.Sprintf("p%d", i), "600m")))
	}
	return ci
}

// gangPod is a pending pod of the job ns/pg asking for cpu, each with its
// own index label and annotation, as a job controller gives them.
func gangPod(name, cpu string) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name),
			Labels:      map[string]string{"index": name},
			Annotations: map[string]string{api.GroupNameAnnotation: "pg", "index": name}},
		Spec: v1.PodSpec{Containers: []v1.Container{{Resources: v1.ResourceRequirements{
			Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu)}}}}},
		Status: v1.PodStatus{Phase: v1.PodPending},
	}
}

// predicateSession opens a session of ci with the module as its one
// plugin, predicates enabled, closed when the test ends; asked counts its
// predicate_batch calls since.
func predicateSession(t *testing.T, name string, p *Plugin, ci *api.ClusterInfo) (*framework.Session, func() int) {
	t.Helper()
	enabled := true
	cfg := &conf.Config{Tiers: []conf.Tier{{Plugins: []conf.PluginOption{{Name: name, EnabledPredicate: &enabled}}}}}
	ssn, err := framework.OpenSession(cloningCache{ci}, framework.Registry{name: Factory(name, p, Policy{})}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ssn.Close)
	calls := metrics.PluginCalls.WithLabelValues(name, abi.HookPredicateBatch.String())
	before := testutil.ToFloat64(calls)
	return ssn, func() int { return int(testutil.ToFloat64(calls) - before) }
}

// nodeVerdicts is the session's predicate message for the task on each
// node, "" where it passes.
func nodeVerdicts(ssn *framework.Session, task *api.TaskInfo) []string {
	var out []string
	for _, n := range ssn.NodeList {
		if s := ssn.PredicateFn(task, n); s != nil {
			out = append(out, s.Message())
		} else {
			out = append(out, "")
		}
	}
	return out
}

// A NodeLocal module (the predicates port declares it) is asked about a
// node once per task shape while the node is unchanged, and again once
// the node changed: the second task of a gang costs no call, and a
// placement never leaves a stale verdict behind.
func TestNodeLocalVerdictsAreKeptUntilTheNodeChanges(t *testing.T) {
	const name = "predicates.tinygo"
	p := builtPort(t, name)
	if !p.descriptor.NodeLocal {
		t.Fatalf("%s does not declare nodeLocal", name)
	}
	ci := gangOnSmallNodes()
	ci.Jobs["ns/pg"].AddTaskInfo(api.NewTaskInfo(gangPod("big", "1500m")))
	ssn, asked := predicateSession(t, name, p, ci)
	var tasks []*api.TaskInfo
	for _, id := range []api.TaskID{"uid-p0", "uid-p1", "uid-p2"} {
		tasks = append(tasks, ssn.Jobs["ns/pg"].Tasks[id])
	}
	verdicts := func(task *api.TaskInfo) []string { return nodeVerdicts(ssn, task) }

	first := verdicts(tasks[0])
	if fmt.Sprint(first) != "[  ]" || asked() != 1 {
		t.Fatalf("first task: verdicts %q after %d calls, want three passes after 1", first, asked())
	}
	if got := verdicts(tasks[1]); fmt.Sprint(got) != fmt.Sprint(first) || asked() != 1 {
		t.Fatalf("second task of the same shape: %q after %d calls, want %q after 1", got, asked(), first)
	}
	// Another shape is not answered from this one's verdicts.
	big := verdicts(ssn.Jobs["ns/pg"].Tasks["uid-big"])
	if fmt.Sprint(big) != "[Insufficient cpu Insufficient cpu Insufficient cpu]" || asked() != 2 {
		t.Fatalf("a 1500m task: %q after %d calls, want every node refused for cpu after 2", big, asked())
	}
	if err := framework.NewStatement(ssn).Allocate(tasks[0], ssn.NodeList[0]); err != nil {
		t.Fatal(err)
	}
	got := verdicts(tasks[1])
	if got[0] != "Insufficient cpu" || got[1] != "" || got[2] != "" {
		t.Errorf("after a placement on n0: %q, want n0 refused for cpu and the others passed", got)
	}
	if asked() != 3 {
		t.Errorf("after a placement on n0: %d calls, want 3 (one call, n0 changed and the others kept for the other shape)", asked())
	}
}

// A task's shape leaves out who it is, whose it is and where it stands,
// and nothing else: a gang's tasks share one whatever their status, so do
// the pods of two gangs made from one template, and a different request
// makes another.
func TestTaskShapeIgnoresIdentityAndPlacement(t *testing.T) {
	ci := gangOnSmallNodes()
	job := ci.Jobs["ns/pg"]
	bound := job.Tasks["uid-p0"]
	job.UpdateTaskStatus(bound, api.Binding)
	bound.NodeName = "n0"
	ci.Nodes["n0"].AddTask(bound)
	other := job.Tasks["uid-p2"]
	job.DeleteTaskInfo(other)
	pod := other.Pod.DeepCopy()
	pod.Spec.Containers[0].Resources.Requests[v1.ResourceCPU] = resource.MustParse("700m")
	job.AddTaskInfo(api.NewTaskInfo(pod))
	second := api.NewJobInfo("ns/pg2")
	second.SetPodGroup(&v1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pg2"}, Spec: v1beta1.PodGroupSpec{MinMember: 1}})
	twin := gangPod("q0", "600m")
	twin.Annotations[api.GroupNameAnnotation] = "pg2"
	second.AddTaskInfo(api.NewTaskInfo(twin))
	ci.Jobs[second.UID] = second

	ssn, err := framework.OpenSession(cloningCache{ci}, framework.Registry{}, &conf.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer ssn.Close()
	h := encodeView(ssn, &viewMemo{}).handles
	shape := func(id api.TaskID) uint64 { return h.taskShape[h.tasks[id]] }
	if shape("uid-p0") != shape("uid-p1") {
		t.Errorf("a binding task and a pending one of the same template, labelled apart, have shapes %x and %x", shape("uid-p0"), shape("uid-p1"))
	}
	if shape("uid-q0") != shape("uid-p1") {
		t.Errorf("pods of one template in two gangs have shapes %x and %x", shape("uid-q0"), shape("uid-p1"))
	}
	if shape("uid-p2") == shape("uid-p1") {
		t.Errorf("tasks asking 700m and 600m share shape %x", shape("uid-p1"))
	}
}

// A module that promises node-local scores for a session (the nodeorder
// port does when no node has a PreferNoSchedule taint and no pod a
// preferred node affinity) is asked to score a node once per task shape
// while the node is unchanged, and again once it changed; the scores added
// are the module's own. A PreferNoSchedule taint withdraws the promise.
func TestNodeLocalScoresAreKeptUntilTheNodeChanges(t *testing.T) {
	const name = "nodeorder.tinygo"
	p := builtPort(t, name)
	enabled := true
	cfg := &conf.Config{Tiers: []conf.Tier{{Plugins: []conf.PluginOption{{Name: name, EnabledNodeOrder: &enabled}}}}}
	calls := metrics.PluginCalls.WithLabelValues(name, abi.HookNodeOrderBatch.String())
	open := func(ci *api.ClusterInfo) (*framework.Session, func() int) {
		ssn, err := framework.OpenSession(cloningCache{ci}, framework.Registry{name: Factory(name, p, Policy{})}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		before := testutil.ToFloat64(calls)
		return ssn, func() int { return int(testutil.ToFloat64(calls) - before) }
	}
	score := func(ssn *framework.Session, id api.TaskID) []float64 {
		scores := make([]float64, len(ssn.NodeList))
		if err := ssn.BatchNodeOrderFn(ssn.Jobs["ns/pg"].Tasks[id], ssn.NodeList, scores); err != nil {
			t.Fatal(err)
		}
		return scores
	}

	ssn, asked := open(gangOnSmallNodes())
	first := score(ssn, "uid-p0")
	if first[0] == 0 || asked() != 1 {
		t.Fatalf("first task: scores %v after %d calls, want scores after 1", first, asked())
	}
	if got := score(ssn, "uid-p1"); fmt.Sprint(got) != fmt.Sprint(first) || asked() != 1 {
		t.Fatalf("second task of the same shape: %v after %d calls, want %v after 1", got, asked(), first)
	}
	if err := framework.NewStatement(ssn).Allocate(ssn.Jobs["ns/pg"].Tasks["uid-p0"], ssn.NodeList[0]); err != nil {
		t.Fatal(err)
	}
	// Without predicates configured, the port's usage does not follow
	// placements (Volcano's), so n0 scores as before, but it is asked again.
	if got := score(ssn, "uid-p1"); asked() != 2 || fmt.Sprint(got) != fmt.Sprint(first) {
		t.Errorf("after a placement on n0: %v after %d calls, want %v after 2 (n0 asked again)", got, asked(), first)
	}
	ssn.Close()

	// One PreferNoSchedule taint per node at most: a node's taint score
	// does not depend on the others, and the promise holds.
	tainted := gangOnSmallNodes()
	tainted.Nodes["n2"].Node.Spec.Taints = []v1.Taint{{Key: "soft", Effect: v1.TaintEffectPreferNoSchedule}}
	ssn, asked = open(tainted)
	first = score(ssn, "uid-p0")
	if got := score(ssn, "uid-p1"); asked() != 1 || fmt.Sprint(got) != fmt.Sprint(first) || first[2] >= first[1] {
		t.Errorf("with one PreferNoSchedule taint on n2: %v after %d calls for two tasks, want 1 call and n2 below n1", got, asked())
	}
	ssn.Close()

	// A new node object, as an update brings: the view remembers nodes by
	// object between sessions.
	twice := gangOnSmallNodes()
	twice.Nodes["n2"].Node.Spec.Taints = []v1.Taint{{Key: "soft", Effect: v1.TaintEffectPreferNoSchedule}, {Key: "soft2", Effect: v1.TaintEffectPreferNoSchedule}}
	ssn, asked = open(twice)
	defer ssn.Close()
	score(ssn, "uid-p0")
	score(ssn, "uid-p1")
	if asked() != 2 {
		t.Errorf("with two PreferNoSchedule taints on a node: %d calls for two tasks, want 2 (no promise, scores normalised over the nodes)", asked())
	}
}

// A node_order_batch call that reopens the session on a fresh instance
// (an earlier call destroyed the one holding the view) keeps the scores it
// got; the reopened session starts without the scores kept before it.
func TestNodeLocalScoresAcrossAReopen(t *testing.T) {
	const name = "nodeorder.tinygo"
	p := builtPort(t, name)
	var held *adapter
	factory := Factory(name, p, Policy{})
	registry := framework.Registry{name: func(args framework.Arguments) (framework.Plugin, error) {
		pl, err := factory(args)
		held, _ = pl.(*adapter)
		return pl, err
	}}
	enabled := true
	cfg := &conf.Config{Tiers: []conf.Tier{{Plugins: []conf.PluginOption{{Name: name, EnabledNodeOrder: &enabled}}}}}
	ci := gangOnSmallNodes()
	ci.Jobs["ns/pg"].AddTaskInfo(api.NewTaskInfo(gangPod("big", "1500m")))
	ssn, err := framework.OpenSession(cloningCache{ci}, registry, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ssn.Close()
	calls := metrics.PluginCalls.WithLabelValues(name, abi.HookNodeOrderBatch.String())
	before := testutil.ToFloat64(calls)
	asked := func() int { return int(testutil.ToFloat64(calls) - before) }
	score := func(id api.TaskID) []float64 {
		scores := make([]float64, len(ssn.NodeList))
		if err := ssn.BatchNodeOrderFn(ssn.Jobs["ns/pg"].Tasks[id], ssn.NodeList, scores); err != nil {
			t.Fatal(err)
		}
		return scores
	}

	first := score("uid-p0")
	// Lose the instance as a failed call does: the next call reopens.
	held.lease.in, held.lease.lost = nil, true
	big := score("uid-big")
	if big[0] == 0 || asked() != 2 {
		t.Fatalf("the call that reopened: scores %v after %d calls, want scores after 2", big, asked())
	}
	if got := score("uid-big"); fmt.Sprint(got) != fmt.Sprint(big) || asked() != 2 {
		t.Errorf("the reopening call's scores: %v after %d calls, want %v kept (2 calls)", got, asked(), big)
	}
	if got := score("uid-p0"); fmt.Sprint(got) != fmt.Sprint(first) || asked() != 3 {
		t.Errorf("after the reopen: %v after %d calls, want %v after 3 (scores kept before it dropped)", got, asked(), first)
	}
}

// A session whose module promised pre_predicate verdicts by shape (the
// predicates port does) asks once per task shape: two pods of one gang
// cost one call, a pod of another shape one more, and a verdict that
// rejects is kept as it came.
func TestPrePredicateVerdictsAreKeptPerShape(t *testing.T) {
	const name = "predicates.tinygo"
	p := builtPort(t, name)
	enabled := true
	cfg := &conf.Config{Tiers: []conf.Tier{{Plugins: []conf.PluginOption{{Name: name, EnabledPredicate: &enabled}}}}}
	ci := gangOnSmallNodes()
	ci.Jobs["ns/pg"].AddTaskInfo(api.NewTaskInfo(gangPod("big", "1500m")))
	for _, n := range []string{"c0", "c1"} {
		pod := gangPod(n, "600m")
		pod.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
			NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchFields: []v1.NodeSelectorRequirement{
				{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{"n0"}},
				{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{"n1"}},
			}}}}}}
		ci.Jobs["ns/pg"].AddTaskInfo(api.NewTaskInfo(pod))
	}
	registry := framework.Registry{name: Factory(name, p, Policy{})}
	ssn, err := framework.OpenSession(cloningCache{ci}, registry, cfg)
	if err != nil {
		t.Fatal(err)
	}
	calls := metrics.PluginCalls.WithLabelValues(name, abi.HookPrePredicate.String())
	before := testutil.ToFloat64(calls)
	asked := func() int { return int(testutil.ToFloat64(calls) - before) }
	verdict := func(id api.TaskID) string {
		if s := ssn.PrePredicateFn(ssn.Jobs["ns/pg"].Tasks[id]); s != nil {
			return s.Message()
		}
		return "pass"
	}
	for _, c := range []struct {
		task  api.TaskID
		want  string
		calls int
	}{
		{"uid-p0", "pass", 1},
		{"uid-p1", "pass", 1},
		{"uid-big", "pass", 2},
		{"uid-c0", "pod affinity terms conflict", 3},
		{"uid-c1", "pod affinity terms conflict", 3},
		{"uid-p2", "pass", 3},
	} {
		if got := verdict(c.task); !strings.Contains(got, c.want) || asked() != c.calls {
			t.Errorf("%s: %q after %d calls, want %q after %d", c.task, got, asked(), c.want, c.calls)
		}
	}
	ssn.Close()

	// The next session's arguments turn the affinity check off: the verdict
	// kept for c0's shape is gone with the session that promised it.
	cfg.Tiers[0].Plugins[0].Arguments = map[string]any{"predicate.NodeAffinityEnable": false}
	ssn, err = framework.OpenSession(cloningCache{ci}, registry, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ssn.Close()
	if got := verdict("uid-c0"); got != "pass" || asked() != 4 {
		t.Errorf("next session without the affinity check: c0 %q after %d calls, want pass after 4", got, asked())
	}
}

// A module whose session_open refuses the session (here, an argument it
// cannot read) is not asked anything else that session: its hooks fail
// safe without a call, rather than answering from a session it never
// accepted. The next session asks it again. The factory below skips the
// load-time check of declared arguments, which would refuse this one
// first, to stand for a refusal the host cannot foresee (an argument the
// module does not declare, or a value it finds wrong).
func TestRefusedSessionAsksNothingMore(t *testing.T) {
	const name = "binpack.tinygo"
	p := builtPort(t, name)
	enabled := true
	cfg := &conf.Config{Tiers: []conf.Tier{{Plugins: []conf.PluginOption{{Name: name, EnabledNodeOrder: &enabled,
		Arguments: framework.Arguments{"binpack.weight": "ten"}}}}}}
	calls := func(h abi.Hook) float64 {
		return testutil.ToFloat64(metrics.PluginCalls.WithLabelValues(name, h.String()))
	}
	for session := 1; session <= 2; session++ {
		opens, scores := calls(abi.HookSessionOpen), calls(abi.HookNodeOrderBatch)
		unchecked := func(args framework.Arguments) (framework.Plugin, error) {
			return &adapter{name: name, mod: p, args: args}, nil
		}
		ssn, err := framework.OpenSession(cloningCache{gangOnSmallNodes()}, framework.Registry{name: unchecked}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]float64, len(ssn.NodeList))
		err = ssn.BatchNodeOrderFn(ssn.Jobs["ns/pg"].Tasks["uid-p0"], ssn.NodeList, out)
		ssn.Close()
		if err == nil || !strings.Contains(err.Error(), "refused this session") || !strings.Contains(err.Error(), "binpack.weight") {
			t.Errorf("session %d: scoring after a refused open: %v, want the refusal", session, err)
		}
		if n := calls(abi.HookSessionOpen) - opens; n != 1 {
			t.Errorf("session %d: %v session_open calls, want 1", session, n)
		}
		if n := calls(abi.HookNodeOrderBatch) - scores; n != 0 {
			t.Errorf("session %d: %v node_order_batch calls after the refused open, want 0", session, n)
		}
	}
}

// A reply that decodes but cannot be used, fewer verdicts than nodes
// asked, is a failed call: counted with cause "reply", its instance
// discarded (the next call reopens the session on a fresh one), and the
// node fails safe.
func TestShortVerdictsAreAFailedCall(t *testing.T) {
	const name = "short-verdicts"
	p, err := Load(context.Background(), buildGuest(t, "rawabi", "-X main.hooks=session_open,session_close,predicate_batch -X main.short=1"), Options{Name: name, Limits: DefaultLimits()})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	enabled := true
	cfg := &conf.Config{Tiers: []conf.Tier{{Plugins: []conf.PluginOption{{Name: name, EnabledPredicate: &enabled}}}}}
	ssn, err := framework.OpenSession(cloningCache{gangOnSmallNodes()}, framework.Registry{name: Factory(name, p, Policy{})}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ssn.Close()
	failures := func() float64 {
		return testutil.ToFloat64(metrics.PluginCallFailures.WithLabelValues(name, abi.HookPredicateBatch.String(), "reply"))
	}
	before, instances := failures(), LiveInstances()
	status := ssn.PredicateFn(ssn.Jobs["ns/pg"].Tasks["uid-p0"], ssn.NodeList[0])
	if status == nil || !strings.Contains(status.Message(), "verdicts for") {
		t.Errorf("predicate with short verdicts: %v, want the node failed with the reply named", status)
	}
	if n := failures() - before; n != 1 {
		t.Errorf("%v failures with cause reply, want 1", n)
	}
	if got := LiveInstances() - instances; got != -1 {
		t.Errorf("instances changed by %d, want -1: the instance that answered is discarded", got)
	}
}

// A guest that cannot apply a session_open delta (EDECODE) is sent the
// whole view, ignorable or not: the refused delta does not skip an
// ignorable plugin for the session.
func TestRefusedDeltaGetsTheWholeViewWhenIgnorable(t *testing.T) {
	const name = "forgetful"
	p, err := Load(context.Background(), buildGuest(t, "rawabi", "-X main.hooks=session_open,session_close,overused -X main.forgetful=1"), Options{Name: name, Limits: DefaultLimits()})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	cfg := &conf.Config{Tiers: []conf.Tier{{Plugins: []conf.PluginOption{{Name: name}}}}}
	opens := func() float64 {
		return testutil.ToFloat64(metrics.PluginCalls.WithLabelValues(name, abi.HookSessionOpen.String()))
	}
	registry := framework.Registry{name: Factory(name, p, Policy{Ignorable: true})}
	for session, want := range []float64{1, 2} { // the whole view; then a delta, refused, and the whole view
		before := opens()
		ssn, err := framework.OpenSession(cloningCache{gangOnSmallNodes()}, registry, cfg)
		if err != nil {
			t.Fatal(err)
		}
		ssn.Close()
		if got := opens() - before; got != want {
			t.Errorf("session %d: %v session_open calls, want %v", session+1, got, want)
		}
	}
}

// In a session with pod rules the predicates port withdraws its node-local
// promise and gives classes instead (ABI 1.4): three replicas that keep
// apart by hostname share a class, so a replica whose pre_predicate was
// asked since the last event is answered from the verdicts another gave,
// except on the node that changed; without its pre_predicate it is asked
// about every node again, since the port's rule states catch up there.
func TestNodeLocalClassesServeAfterPrePredicate(t *testing.T) {
	const name = "predicates.tinygo"
	p := builtPort(t, name)
	ci := gangOnSmallNodes()
	for _, n := range ci.Nodes {
		n.Node.Labels = map[string]string{v1.LabelHostname: n.Name}
	}
	job := ci.Jobs["ns/pg"]
	for _, task := range job.Tasks {
		job.DeleteTaskInfo(task)
	}
	anti := &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, TopologyKey: v1.LabelHostname}}}}
	for i := range 3 {
		pod := gangPod(fmt.Sprintf("db%d", i), "100m")
		pod.Labels = map[string]string{"app": "db"}
		pod.Spec.Affinity = anti
		job.AddTaskInfo(api.NewTaskInfo(pod))
	}
	ssn, asked := predicateSession(t, name, p, ci)
	task := func(i int) *api.TaskInfo { return ssn.Jobs["ns/pg"].Tasks[api.TaskID(fmt.Sprintf("uid-db%d", i))] }
	verdicts := func(task *api.TaskInfo, pre bool) string {
		if pre {
			if s := ssn.PrePredicateFn(task); s != nil {
				t.Fatalf("pre_predicate: %v", s.Message())
			}
		}
		return strings.Join(nodeVerdicts(ssn, task), "|")
	}
	if got := verdicts(task(0), true); got != "||" || asked() != 1 {
		t.Fatalf("db0: %q after %d calls, want three passes after 1", got, asked())
	}
	if got := verdicts(task(1), true); got != "||" || asked() != 1 {
		t.Fatalf("db1 after its pre_predicate: %q after %d calls, want three passes after 1", got, asked())
	}
	if err := framework.NewStatement(ssn).Allocate(task(0), ssn.NodeList[0]); err != nil {
		t.Fatal(err)
	}
	// Without its pre_predicate db1 is asked, and answered from the state
	// of its last one, as Volcano's filters answer from PreFilter's.
	if got := verdicts(task(1), false); got != "||" || asked() != 2 {
		t.Fatalf("db1 after db0 went to n0, no pre_predicate: %q after %d calls, want three passes after 2", got, asked())
	}
	if got := verdicts(task(2), true); got != "node(s) didn't match pod anti-affinity rules||" || asked() != 3 {
		t.Fatalf("db2 after its pre_predicate: %q after %d calls, want n0 refused after 3 (n0 alone asked)", got, asked())
	}
}
