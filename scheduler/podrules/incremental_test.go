package podrules

import (
	"fmt"
	"math/rand"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// randomPod draws a pod with labels from a small alphabet and, now and
// then, affinity terms and spread constraints over hostname and zone.
func randomPod(r *rand.Rand, i int) *v1.Pod {
	ns := []string{"a", "b"}[r.Intn(2)]
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{
		Name: fmt.Sprintf("p%d", i), Namespace: ns, UID: types.UID(fmt.Sprintf("p%d", i)),
		Labels: map[string]string{"app": []string{"x", "y", "z"}[r.Intn(3)]},
	}}
	keys := []string{v1.LabelHostname, "zone"}
	sel := func() *metav1.LabelSelector {
		if r.Intn(4) == 0 { // no label demanded: any pod may match
			return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"z"}}}}
		}
		return &metav1.LabelSelector{MatchLabels: map[string]string{"app": []string{"x", "y"}[r.Intn(2)]}}
	}
	term := func() v1.PodAffinityTerm {
		t := v1.PodAffinityTerm{LabelSelector: sel(), TopologyKey: keys[r.Intn(2)]}
		if r.Intn(4) == 0 {
			t.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "t1"}}
		}
		return t
	}
	if r.Intn(3) == 0 {
		aff := &v1.Affinity{PodAffinity: &v1.PodAffinity{}, PodAntiAffinity: &v1.PodAntiAffinity{}}
		if r.Intn(2) == 0 {
			aff.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = []v1.PodAffinityTerm{term()}
		}
		if r.Intn(2) == 0 {
			aff.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = []v1.PodAffinityTerm{term()}
		}
		if r.Intn(2) == 0 {
			aff.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution = []v1.WeightedPodAffinityTerm{{Weight: int32(1 + r.Intn(50)), PodAffinityTerm: term()}}
		}
		if r.Intn(2) == 0 {
			aff.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = []v1.WeightedPodAffinityTerm{{Weight: int32(1 + r.Intn(50)), PodAffinityTerm: term()}}
		}
		p.Spec.Affinity = aff
	}
	if r.Intn(3) == 0 {
		action := []v1.UnsatisfiableConstraintAction{v1.DoNotSchedule, v1.ScheduleAnyway}[r.Intn(2)]
		p.Spec.TopologySpreadConstraints = []v1.TopologySpreadConstraint{{
			MaxSkew: int32(1 + r.Intn(2)), TopologyKey: keys[r.Intn(2)], WhenUnsatisfiable: action, LabelSelector: sel(),
		}}
	}
	return p
}

func randomNodes(r *rand.Rand, n int) []*api.NodeInfo {
	var out []*api.NodeInfo
	for i := 0; i < n; i++ {
		labels := map[string]string{v1.LabelHostname: fmt.Sprintf("n%d", i)}
		if r.Intn(5) != 0 {
			labels["zone"] = fmt.Sprintf("z%d", r.Intn(3))
		}
		ni := api.NewNodeInfo(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("n%d", i), Labels: labels}})
		ni.Index = i
		out = append(out, ni)
	}
	return out
}

// Every state kept current from the log answers as a state built afresh
// over the same pods, through placements and removals in any order.
func TestIncrementalStatesAnswerAsFreshOnes(t *testing.T) {
	for seed := int64(1); seed <= 40; seed++ {
		r := rand.New(rand.NewSource(seed))
		nodes := randomNodes(r, 2+r.Intn(6))
		nsLabels := map[string]map[string]string{"a": {"team": "t1"}, "b": {"team": "t2"}}
		idx := NewIndex(nodes, nsLabels)
		var incoming []*v1.Pod
		for i := 0; i < 6; i++ {
			incoming = append(incoming, randomPod(r, 1000+i))
		}
		type states struct {
			af *AffinityFilter
			as *AffinityScore
			sf *SpreadFilter
			ss *SpreadScore
		}
		kept := make([]states, len(incoming))
		for i, p := range incoming {
			kept[i] = states{NewAffinityFilter(idx, p), NewAffinityScore(idx, p, 1), NewSpreadFilter(idx, p), NewSpreadScore(idx, p, nil)}
		}
		var placed []*api.TaskInfo
		for step := 0; step < 60; step++ {
			if len(placed) > 0 && r.Intn(3) == 0 {
				k := r.Intn(len(placed))
				idx.Remove(placed[k])
				placed = append(placed[:k], placed[k+1:]...)
			} else {
				task := api.NewTaskInfo(randomPod(r, step))
				task.NodeName = nodes[r.Intn(len(nodes))].Name
				idx.Add(task)
				placed = append(placed, task)
			}
			for i, p := range incoming {
				kept[i].af.CatchUp()
				kept[i].sf.CatchUp()
				fresh := states{NewAffinityFilter(idx, p), NewAffinityScore(idx, p, 1), NewSpreadFilter(idx, p), NewSpreadScore(idx, p, nil)}
				compareStates(t, fmt.Sprintf("seed %d step %d pod %d", seed, step, i), idx,
					kept[i].af, fresh.af, kept[i].as, fresh.as, kept[i].sf, fresh.sf, kept[i].ss, fresh.ss)
			}
		}
	}
}

func compareStates(t *testing.T, where string, idx *Index, af, faf *AffinityFilter, as, fas *AffinityScore, sf, fsf *SpreadFilter, ss, fss *SpreadScore) {
	t.Helper()
	for _, nd := range idx.nodes {
		if r1, u1 := af.Filter(nd); true {
			if r2, u2 := faf.Filter(nd); r1 != r2 || u1 != u2 {
				t.Fatalf("%s: affinity filter on node %d: kept %q %v, fresh %q %v", where, nd.index, r1, u1, r2, u2)
			}
		}
		if r1, u1 := sf.Filter(nd); true {
			if r2, u2 := fsf.Filter(nd); r1 != r2 || u1 != u2 {
				t.Fatalf("%s: spread filter on node %d: kept %q %v, fresh %q %v", where, nd.index, r1, u1, r2, u2)
			}
		}
	}
	for i, dc := range sf.counts {
		least := -1
		for id, n := range dc.counts {
			if dc.known[id] && (least < 0 || n < least) {
				least = n
			}
		}
		if least >= 0 && dc.min != least {
			t.Fatalf("%s: smallest count of %s kept as %d, the domains hold %v (known %v)", where, sf.cs[i].key, dc.min, dc.counts, dc.known)
		}
	}
	a, b := make([]int64, len(idx.nodes)), make([]int64, len(idx.nodes))
	if ok1, ok2 := as.Score(idx.nodes, a), fas.Score(idx.nodes, b); ok2 && (!ok1 || fmt.Sprint(a) != fmt.Sprint(b)) {
		t.Fatalf("%s: affinity score kept %v, fresh %v", where, a, b)
	}
	if ok1, ok2 := ss.Score(idx.nodes, a), fss.Score(idx.nodes, b); ok1 != ok2 || fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatalf("%s: spread score kept %v, fresh %v", where, a, b)
	}
}
