package overcommit

import (
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/testutil"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

func TestNewReadsTheFactor(t *testing.T) {
	tests := []struct {
		name    string
		args    framework.Arguments
		factor  float64
		wantErr string
	}{
		{name: "default", args: nil, factor: 1.2},
		{name: "given", args: framework.Arguments{FactorArgument: 1.5}, factor: 1.5},
		{name: "given as an integer", args: framework.Arguments{FactorArgument: 2}, factor: 2},
		{name: "below 1 falls back to the default", args: framework.Arguments{FactorArgument: 0.8}, factor: 1.2},
		{name: "not a number", args: framework.Arguments{FactorArgument: "lots"}, wantErr: FactorArgument},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(tc.args)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one naming %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := p.(*Plugin).Factor(); got != tc.factor {
				t.Errorf("factor = %v, want %v", got, tc.factor)
			}
		})
	}
}

func withMin(pg *v1beta1.PodGroup, rl v1.ResourceList) *v1beta1.PodGroup {
	pg.Spec.MinResources = &rl
	return pg
}

// The cluster: 10 cpu, 8 in use by a running job; an admitted job claims 1
// more. A pending job asking for minCPU is admitted when
// 1 + minCPU <= 10*factor - 8.
func TestJobEnqueueable(t *testing.T) {
	tests := []struct {
		name   string
		factor string
		minCPU string // "" for a job without minResources
		admit  bool
	}{
		{"fits within the overcommitted room", "1.2", "3", true},
		{"too big for the overcommitted room", "1.2", "4", false},
		{"a larger factor makes room", "1.5", "4", true},
		{"no overcommit leaves 1 cpu", "1.0", "2", false},
		{"a job without minResources is always admitted", "1.0", "", true},
	}
	// Volcano's words for a refusal, on the PodGroup.
	const refused = "ns/new Normal Unschedulable resource in cluster is overused: overused cpu"
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pending := testutil.PodGroup("ns", "new", "q", 1, v1beta1.PodGroupPending)
			if tc.minCPU != "" {
				withMin(pending, testutil.Res("cpu", tc.minCPU))
			}
			c := testutil.Cluster{
				Queues: []*v1beta1.Queue{testutil.Queue("q", 1)},
				Nodes:  []*v1.Node{testutil.Node("n1", testutil.Res("cpu", "10", "memory", "10Gi", "pods", "110"))},
				PodGroups: []*v1beta1.PodGroup{
					withMin(testutil.PodGroup("ns", "busy", "q", 1, v1beta1.PodGroupRunning), testutil.Res("cpu", "8")),
					withMin(testutil.PodGroup("ns", "admitted", "q", 1, v1beta1.PodGroupInqueue), testutil.Res("cpu", "1")),
					pending,
				},
				Pods: []*v1.Pod{testutil.Pod("ns", "busy-0", "busy", "n1", testutil.Res("cpu", "8"))},
			}
			cfg := testutil.Tier(Name) + "    arguments:\n      overcommit-factor: " + tc.factor + "\n"
			ssn, cache := testutil.Open(t, c, testutil.Registry(t, map[string]framework.Factory{Name: New}), cfg)
			if got := ssn.JobEnqueueable(testutil.Job(t, ssn, "ns/new")); got != tc.admit {
				t.Errorf("admitted = %v, want %v", got, tc.admit)
			}
			var want []string
			if !tc.admit {
				want = []string{refused}
			}
			if !slices.Equal(cache.Events, want) {
				t.Errorf("events %q, want %q", cache.Events, want)
			}
		})
	}
}

func TestJobEnqueuedReservesRoom(t *testing.T) {
	c := testutil.Cluster{
		Queues: []*v1beta1.Queue{testutil.Queue("q", 1)},
		Nodes:  []*v1.Node{testutil.Node("n1", testutil.Res("cpu", "5", "memory", "10Gi", "pods", "110"))},
		PodGroups: []*v1beta1.PodGroup{
			withMin(testutil.PodGroup("ns", "first", "q", 1, v1beta1.PodGroupPending), testutil.Res("cpu", "4")),
			withMin(testutil.PodGroup("ns", "second", "q", 1, v1beta1.PodGroupPending), testutil.Res("cpu", "4")),
		},
	}
	ssn, _ := testutil.Open(t, c, testutil.Registry(t, map[string]framework.Factory{Name: New}), testutil.Tier(Name))
	first, second := testutil.Job(t, ssn, "ns/first"), testutil.Job(t, ssn, "ns/second")
	if !ssn.JobEnqueueable(first) || !ssn.JobEnqueueable(second) {
		t.Fatalf("either job alone fits 5 cpu * 1.2")
	}
	ssn.JobEnqueued(first)
	if ssn.JobEnqueueable(second) {
		t.Errorf("once the first job is admitted, 4 + 4 cpu exceed 6: the second must wait")
	}
}
