package pdb

import (
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

func task(name, ns string, labels map[string]string) *api.TaskInfo {
	return &api.TaskInfo{Name: name, Namespace: ns, Pod: &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels}}}
}

func newBudget(ns string, selector map[string]string, allowed int32, disrupted ...string) *policyv1.PodDisruptionBudget {
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "test-pdb", Namespace: ns},
		Spec:       policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: selector}},
		Status:     policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: allowed},
	}
	if len(disrupted) > 0 {
		pdb.Status.DisruptedPods = map[string]metav1.Time{}
		for _, p := range disrupted {
			pdb.Status.DisruptedPods[p] = metav1.Now()
		}
	}
	return pdb
}

// The first three cases are Volcano v1.15's TestPreemptableAndReclaimableFn
// (pkg/scheduler/plugins/pdb/pdb_test.go: no budget, a budget allowing no
// disruption, one allowing one, over two pods labelled job-1); the rest
// are this plugin's edges. Preemptable, Reclaimable and VictimTasks agree.
func TestBudgetsKeepVictims(t *testing.T) {
	job1 := map[string]string{"volcano.sh/job-name": "job-1"}
	for _, tc := range []struct {
		name    string
		budgets []*policyv1.PodDisruptionBudget
		tasks   []*api.TaskInfo
		want    []string
	}{
		{"test without pdbs", nil, []*api.TaskInfo{task("test-pod1", "default", job1), task("test-pod2", "default", job1)}, []string{"test-pod1", "test-pod2"}},
		{"test with pdbs(can evict 0 pod)", []*policyv1.PodDisruptionBudget{newBudget("default", job1, 0)},
			[]*api.TaskInfo{task("test-pod1", "default", job1), task("test-pod2", "default", job1)}, nil},
		{"test with pdbs(can evict 1 pod)", []*policyv1.PodDisruptionBudget{newBudget("default", job1, 1)},
			[]*api.TaskInfo{task("test-pod1", "default", job1), task("test-pod2", "default", job1)}, []string{"test-pod1"}},
		{"a pod without labels is never a victim", nil, []*api.TaskInfo{task("bare", "default", nil), task("test-pod1", "default", job1)}, []string{"test-pod1"}},
		{"a budget of another namespace does not count", []*policyv1.PodDisruptionBudget{newBudget("other", job1, 0)},
			[]*api.TaskInfo{task("test-pod1", "default", job1)}, []string{"test-pod1"}},
		{"an empty selector matches nothing", []*policyv1.PodDisruptionBudget{newBudget("default", nil, 0)},
			[]*api.TaskInfo{task("test-pod1", "default", job1)}, []string{"test-pod1"}},
		{"a pod already disrupted uses no disruption", []*policyv1.PodDisruptionBudget{newBudget("default", job1, 1, "test-pod1")},
			[]*api.TaskInfo{task("test-pod1", "default", job1), task("test-pod2", "default", job1)}, []string{"test-pod1", "test-pod2"}},
		{"every matching budget must allow it", []*policyv1.PodDisruptionBudget{newBudget("default", job1, 2), newBudget("default", map[string]string{"tier": "db"}, 0)},
			[]*api.TaskInfo{task("db", "default", map[string]string{"volcano.sh/job-name": "job-1", "tier": "db"}), task("test-pod1", "default", job1)}, []string{"test-pod1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &Plugin{}
			p.OnSessionOpen(&framework.Session{DisruptionBudgets: tc.budgets})
			names := func(ts []*api.TaskInfo) []string {
				var out []string
				for _, v := range ts {
					out = append(out, v.Name)
				}
				return out
			}
			pre, preVoted := p.Preemptable(nil, tc.tasks)
			rec, recVoted := p.Reclaimable(nil, tc.tasks)
			for hook, got := range map[string][]string{"preemptable": names(pre), "reclaimable": names(rec), "victim_tasks": names(p.VictimTasks(tc.tasks))} {
				if !slices.Equal(got, tc.want) {
					t.Errorf("%s: victims %v, want %v", hook, got, tc.want)
				}
			}
			if !preVoted || !recVoted {
				t.Error("the plugin abstained")
			}
		})
	}
}
