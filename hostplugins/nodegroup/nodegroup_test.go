package nodegroup

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/testutil"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// queue is a queue with the given parent and affinity, as Volcano's
// util.MakeQueue builds them in nodegroup_test.go.
func queue(name, parent string, required, preferred, antiRequired, antiPreferred []string) *v1beta1.Queue {
	q := testutil.Queue(name, 1)
	q.Spec.Parent = parent
	if required != nil || preferred != nil || antiRequired != nil || antiPreferred != nil {
		q.Spec.Affinity = &v1beta1.Affinity{
			NodeGroupAffinity:     &v1beta1.NodeGroupAffinity{RequiredDuringSchedulingIgnoredDuringExecution: required, PreferredDuringSchedulingIgnoredDuringExecution: preferred},
			NodeGroupAntiAffinity: &v1beta1.NodeGroupAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: antiRequired, PreferredDuringSchedulingIgnoredDuringExecution: antiPreferred},
		}
	}
	return q
}

// TestNodeGroup translates Volcano v1.15's TestNodeGroup
// (pkg/scheduler/plugins/nodegroup/nodegroup_test.go): each case's score
// and predicate code for its one pod on n1..n5, n1..n4 in group1..group4
// and n5 unlabelled. Its "queue without affinity" case names a job whose
// queue is missing, so Volcano's session holds no job and checks nothing;
// here the job is in the queue without affinity, which its expectations
// describe.
func TestNodeGroup(t *testing.T) {
	g := func(names ...string) []string { return names }
	root := queue("root", "", g("group1", "group3"), g("group3"), g("group2", "group4"), g("group4"))
	q1 := queue("q1", "root", g("group1", "group3"), g("group3"), g("group2", "group4"), g("group4"))
	q2 := queue("q2", "root", g("group1"), g("group3"), g("group2"), g("group4"))
	q3 := queue("q3", "", nil, g("group1", "group3"), nil, nil)
	rootNoAffinity := queue("root-no-affinity", "", nil, nil, nil, nil)
	noAffinity := queue("q-no-affinity", "root", nil, nil, nil, nil)
	q1Child := queue("q1-child", "q1", nil, nil, nil, nil)
	noAffinityChild := queue("q-no-affinity-child", "q-no-affinity", nil, nil, nil, nil)

	const (
		ok  = framework.Success
		bad = framework.UnschedulableAndUnresolvable
	)
	for _, tc := range []struct {
		name      string
		queues    []*v1beta1.Queue
		queue     string
		args      string
		hierarchy bool
		scores    [5]float64
		codes     [5]framework.Code
	}{
		{"soft constraints is subset of hard constraints", []*v1beta1.Queue{q1}, "q1", "", false,
			[5]float64{100, 0, 150, -1, 0}, [5]framework.Code{ok, bad, ok, ok, bad}},
		{"soft constraints is not subset of hard constraints", []*v1beta1.Queue{q2}, "q2", "", false,
			[5]float64{100, 0, 50, -1, 0}, [5]framework.Code{ok, bad, ok, ok, bad}},
		{"affinity is not set for the queue, pods still cannot be scheduled to nodes with the nodegroup label when strict=false", []*v1beta1.Queue{rootNoAffinity}, "root-no-affinity", "strict: false", false,
			[5]float64{0, 0, 0, 0, 0}, [5]framework.Code{bad, bad, bad, bad, ok}},
		{"affinity inherits from parent queue", []*v1beta1.Queue{root, q1, q1Child}, "q1-child", "", true,
			[5]float64{100, 0, 150, -1, 0}, [5]framework.Code{ok, bad, ok, ok, bad}},
		{"affinity inherits from ancestor queue if parent queue has no affinity", []*v1beta1.Queue{root, noAffinity, noAffinityChild}, "q-no-affinity-child", "", true,
			[5]float64{100, 0, 150, -1, 0}, [5]framework.Code{ok, bad, ok, ok, bad}},
		{"queue without affinity", []*v1beta1.Queue{noAffinity}, "q-no-affinity", "", false,
			[5]float64{0, 0, 0, 0, 0}, [5]framework.Code{bad, bad, bad, bad, bad}},
		{"preferred nodegroup priority ordering", []*v1beta1.Queue{q3}, "q3", "enablePreferredOrder: true", false,
			[5]float64{50, 0, 25, 0, 0}, [5]framework.Code{ok, bad, ok, bad, bad}},
		// Caldera's own: without hierarchy a child keeps its own (no) affinity.
		{"no inheritance without enableHierarchy", []*v1beta1.Queue{root, q1, q1Child}, "q1-child", "", false,
			[5]float64{0, 0, 0, 0, 0}, [5]framework.Code{bad, bad, bad, bad, bad}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var nodes []*v1.Node
			for i := 1; i <= 5; i++ {
				n := testutil.Node(fmt.Sprintf("n%d", i), testutil.Res("cpu", "4", "memory", "16Gi"))
				if i < 5 {
					n.Labels = map[string]string{GroupLabel: fmt.Sprintf("group%d", i)}
				}
				nodes = append(nodes, n)
			}
			c := testutil.Cluster{
				Queues:    tc.queues,
				Nodes:     nodes,
				PodGroups: []*v1beta1.PodGroup{testutil.PodGroup("c1", "pg", tc.queue, 0, v1beta1.PodGroupInqueue)},
				Pods:      []*v1.Pod{testutil.Pod("c1", "p", "pg", "", testutil.Res("cpu", "2", "memory", "4Gi"))},
			}
			conf := fmt.Sprintf("actions: allocate\ntiers:\n- plugins:\n  - name: nodegroup\n    enableHierarchy: %v\n    arguments: {%s}\n", tc.hierarchy, tc.args)
			ssn, _ := testutil.Open(t, c, testutil.Registry(t, map[string]framework.Factory{Name: New}), conf)
			defer ssn.Close()
			task := testutil.Task(t, ssn, "c1/p")
			for i, n := range ssn.NodeList {
				score, err := ssn.NodeOrderFn(task, n)
				if err != nil || score != tc.scores[i] {
					t.Errorf("%s: score %v (%v), want %v", n.Name, score, err, tc.scores[i])
				}
				code := framework.Success
				if s := ssn.PredicateFn(task, n); s != nil {
					code = s.Code
				}
				if code != tc.codes[i] {
					t.Errorf("%s: predicate %v, want %v", n.Name, code, tc.codes[i])
				}
			}
		})
	}
}

func TestArgumentsOfTheWrongTypeAreRefused(t *testing.T) {
	for key, value := range map[string]any{"strict": "maybe", "enablePreferredOrder": 3} {
		if _, err := New(framework.Arguments{key: value}); err == nil {
			t.Errorf("%s: %v accepted", key, value)
		}
	}
}
