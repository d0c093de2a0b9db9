package conformance

import (
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/testutil"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

func TestCriticalPodsAreNeverVictims(t *testing.T) {
	cpu1 := testutil.Res("cpu", "1")
	withClass := func(p *v1.Pod, class string) *v1.Pod { p.Spec.PriorityClassName = class; return p }
	pods := map[string]*v1.Pod{
		"app/plain":           testutil.Pod("app", "plain", "pg", "n1", cpu1),
		"app/cluster-crit":    withClass(testutil.Pod("app", "cluster-crit", "pg", "n1", cpu1), "system-cluster-critical"),
		"app/node-crit":       withClass(testutil.Pod("app", "node-crit", "pg", "n1", cpu1), "system-node-critical"),
		"app/high":            withClass(testutil.Pod("app", "high", "pg", "n1", cpu1), "high-priority"),
		"kube-system/coredns": testutil.Pod("kube-system", "coredns", "sys", "n1", cpu1),
	}
	c := testutil.Cluster{
		Queues: []*v1beta1.Queue{testutil.Queue("q", 1)},
		Nodes:  []*v1.Node{testutil.Node("n1", testutil.Res("cpu", "8", "pods", "110"))},
		PodGroups: []*v1beta1.PodGroup{
			testutil.PodGroup("app", "pg", "q", 1, v1beta1.PodGroupRunning),
			testutil.PodGroup("kube-system", "sys", "q", 1, v1beta1.PodGroupRunning),
		},
	}
	for _, p := range pods {
		c.Pods = append(c.Pods, p)
	}
	ssn, _ := testutil.Open(t, c, testutil.Registry(t, map[string]framework.Factory{Name: New}), testutil.Tier(Name))

	tests := []struct {
		name       string
		candidates []string
		victims    []string
	}{
		{"only ordinary pods are victims", []string{"app/plain", "app/cluster-crit", "app/node-crit", "app/high", "kube-system/coredns"}, []string{"app/high", "app/plain"}},
		{"a list of critical pods yields no victim", []string{"app/cluster-crit", "kube-system/coredns"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var candidates []*api.TaskInfo
			for _, k := range tc.candidates {
				candidates = append(candidates, testutil.Task(t, ssn, k))
			}
			if got := testutil.Keys(ssn.Preemptable(candidates[0], candidates)); !slices.Equal(got, tc.victims) && len(got)+len(tc.victims) > 0 {
				t.Errorf("preempt victims = %v, want %v", got, tc.victims)
			}
			if got := testutil.Keys(ssn.Reclaimable(candidates[0], candidates)); !slices.Equal(got, tc.victims) && len(got)+len(tc.victims) > 0 {
				t.Errorf("reclaim victims = %v, want %v", got, tc.victims)
			}
		})
	}
}
