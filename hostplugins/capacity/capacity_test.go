package capacity

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/testutil"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

func TestArgumentsAreChecked(t *testing.T) {
	for _, tc := range []struct {
		args framework.Arguments
		err  string
	}{
		{framework.Arguments{AncestorReclaimLevelKey: 2}, ""},
		{framework.Arguments{AncestorReclaimLevelKey: "1"}, ""},
		{framework.Arguments{DRAKey: false, DRAConsumableKey: false}, ""},
		{framework.Arguments{AncestorReclaimLevelKey: -1}, `argument "ancestorReclaimLevel": expected 0 or more, got -1`},
		{framework.Arguments{AncestorReclaimLevelKey: "two"}, `argument "ancestorReclaimLevel": expected an integer`},
		{framework.Arguments{DRAKey: true}, `argument "capacity.DynamicResourceAllocationEnable": queue quotas of dynamically allocated devices`},
		{framework.Arguments{DRAConsumableKey: true}, `argument "capacity.DRAConsumableCapacityEnable": queue quotas`},
		{framework.Arguments{DRAKey: "yes please"}, `argument "capacity.DynamicResourceAllocationEnable": expected`},
	} {
		_, err := New(tc.args)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("New(%v) = %v, want error containing %q", tc.args, err, tc.err)
		}
	}
}

func child(name, parent string, deserved, capability v1.ResourceList) *v1beta1.Queue {
	q := testutil.Queue(name, 1)
	q.Spec.Parent = parent
	q.Spec.Deserved = deserved
	q.Spec.Capability = capability
	return q
}

const hierarchyConf = "actions: enqueue, allocate\ntiers:\n- plugins:\n  - name: capacity\n    enableHierarchy: true\n"

// A tree the plugin cannot use stops it for the session, and every waiting
// PodGroup is told why.
func TestUnusableHierarchyIsRefusedWithAnEvent(t *testing.T) {
	cpu := testutil.Res("cpu", "1", "memory", "1Gi")
	for _, tc := range []struct {
		name   string
		queues []*v1beta1.Queue
		event  string
	}{
		{"missing parent", []*v1beta1.Queue{child("root", "", nil, nil), child("a", "nowhere", nil, nil)},
			"queue a names parent queue nowhere, which does not exist"},
		{"cycle", []*v1beta1.Queue{child("root", "", nil, nil), child("a", "b", nil, nil), child("b", "a", nil, nil)},
			"queue parents form a cycle: a -> b -> a"},
		{"no root", []*v1beta1.Queue{child("a", "", nil, nil)},
			`the root queue "root" does not exist`},
		{"job in a parent queue", []*v1beta1.Queue{child("root", "", nil, nil), child("a", "", nil, nil), child("a1", "a", nil, nil)},
			"job ns/pg is in queue a, which has child queues"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := testutil.Cluster{
				Nodes:     []*v1.Node{testutil.Node("n1", testutil.Res("cpu", "4", "memory", "4Gi", "pods", "10"))},
				Queues:    tc.queues,
				PodGroups: []*v1beta1.PodGroup{testutil.PodGroup("ns", "pg", "a", 1, v1beta1.PodGroupInqueue)},
				Pods:      []*v1.Pod{testutil.Pod("ns", "p", "pg", "", cpu)},
			}
			ssn, cache := testutil.Open(t, c, testutil.Registry(t, map[string]framework.Factory{Name: New}), hierarchyConf)
			defer ssn.Close()
			job := testutil.Job(t, ssn, "ns/pg")
			if ssn.JobEnqueueable(job) {
				t.Error("job enqueueable under an unusable hierarchy")
			}
			if ssn.Allocatable(ssn.Queues["a"], testutil.Task(t, ssn, "ns/p")) {
				t.Error("queue a takes a task under an unusable hierarchy")
			}
			events := strings.Join(cache.Events, "\n")
			want := "ns/pg Warning Unschedulable queue hierarchy (capacity plugin, enableHierarchy): " + tc.event
			if !strings.Contains(events, want) {
				t.Errorf("events %q, want one containing %q", events, want)
			}
		})
	}
}

// A child without a capability of its own takes its parent's, and the
// parent bounds both children together: the second job does not fit.
func TestChildrenShareTheParentsCapability(t *testing.T) {
	twoCPU := testutil.Res("cpu", "2", "memory", "2Gi")
	pg := func(name, queue string) *v1beta1.PodGroup {
		g := testutil.PodGroup("ns", name, queue, 1, v1beta1.PodGroupRunning)
		g.Spec.MinResources = &twoCPU
		return g
	}
	c := testutil.Cluster{
		Nodes: []*v1.Node{testutil.Node("n1", testutil.Res("cpu", "8", "memory", "8Gi", "pods", "10"))},
		Queues: []*v1beta1.Queue{child("root", "", nil, nil), child("team", "", nil, testutil.Res("cpu", "3", "memory", "8Gi")),
			child("team-a", "team", nil, nil), child("team-b", "team", nil, nil)},
		PodGroups: []*v1beta1.PodGroup{pg("a", "team-a"), pg("b", "team-b")},
		Pods:      []*v1.Pod{testutil.Pod("ns", "a-0", "a", "n1", twoCPU), testutil.Pod("ns", "b-0", "b", "", twoCPU)},
	}
	ssn, _ := testutil.Open(t, c, testutil.Registry(t, map[string]framework.Factory{Name: New}), hierarchyConf)
	defer ssn.Close()
	p := ssn.Plugins()[0].(*Plugin)
	if got := p.queues["team-b"].capability.MilliCPU; got != 3000 {
		t.Errorf("team-b inherits capability cpu %v, want 3000", got)
	}
	if got := p.queues["team"].Allocated.MilliCPU; got != 2000 {
		t.Errorf("team holds cpu %v, want its child's 2000", got)
	}
	if ssn.Allocatable(ssn.Queues["team-b"], testutil.Task(t, ssn, "ns/b-0")) {
		t.Error("team-b takes 2 CPU while its parent, capped at 3, holds 2")
	}
}
