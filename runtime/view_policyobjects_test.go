package runtime

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/vmihailenco/msgpack/v5"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/caldera-scheduler/caldera/abi"
)

// Budgets and quotas reach the view in namespace and name order, selectors
// as requirements (matchLabels first, in key order), nil and empty
// selectors kept apart, quantities as milli-values.
func TestWirePolicyObjects(t *testing.T) {
	pdb := func(ns, name string, sel *metav1.LabelSelector, allowed int32, disrupted ...string) *policyv1.PodDisruptionBudget {
		p := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: policyv1.PodDisruptionBudgetSpec{Selector: sel}}
		p.Status.DisruptionsAllowed = allowed
		if len(disrupted) > 0 {
			p.Status.DisruptedPods = map[string]metav1.Time{}
			for _, d := range disrupted {
				p.Status.DisruptedPods[d] = metav1.Time{}
			}
		}
		return p
	}
	got := wireBudgets([]*policyv1.PodDisruptionBudget{
		pdb("b", "x", &metav1.LabelSelector{}, 0),
		pdb("a", "y", &metav1.LabelSelector{MatchLabels: map[string]string{"z": "1", "app": "db"},
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"web"}}}}, 2, "p2", "p1"),
		pdb("a", "none", nil, 1),
	})
	want := []abi.DisruptionBudget{
		{Namespace: "a", Name: "none", DisruptionsAllowed: 1},
		{Namespace: "a", Name: "y", DisruptionsAllowed: 2, DisruptedPods: []string{"p1", "p2"}, Selector: &abi.Selector{Requirements: []abi.NodeSelectorRequirement{
			{Key: "app", Operator: "In", Values: []string{"db"}}, {Key: "z", Operator: "In", Values: []string{"1"}},
			{Key: "tier", Operator: "NotIn", Values: []string{"web"}}}}},
		{Namespace: "b", Name: "x", Selector: &abi.Selector{}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("budgets\n%+v\nwant\n%+v", got, want)
	}

	quotas := wireQuotas(map[string]map[string]v1.ResourceQuotaStatus{
		"ns": {"compute": {Hard: v1.ResourceList{"requests.cpu": resource.MustParse("4"), "requests.memory": resource.MustParse("1Ki")},
			Used: v1.ResourceList{"requests.cpu": resource.MustParse("500m")}}, "count": {Hard: v1.ResourceList{"pods": resource.MustParse("10")}}},
	})
	wantQ := []abi.ResourceQuota{
		{Namespace: "ns", Name: "compute", Hard: map[string]int64{"requests.cpu": 4000, "requests.memory": 1024000}, Used: map[string]int64{"requests.cpu": 500}},
		{Namespace: "ns", Name: "count", Hard: map[string]int64{"pods": 10000}},
	}
	if !reflect.DeepEqual(quotas, wantQ) {
		t.Errorf("quotas\n%+v\nwant\n%+v", quotas, wantQ)
	}
	if encodeQuotas(nil) != nil || encodeBudgets(nil) != nil {
		t.Error("no budgets or quotas should leave the fields out")
	}

	// The hand encoders write what reflection writes (quota maps in key
	// order, which reflection does not keep).
	if hand, refl := encodeBudgets(want), mustMarshal(t, want); !bytes.Equal(hand, refl) {
		t.Errorf("budgets by hand\n%x\nby reflection\n%x", hand, refl)
	}
	var back []abi.ResourceQuota
	if err := msgpack.Unmarshal(encodeQuotas(wantQ), &back); err != nil || !reflect.DeepEqual(back, wantQ) {
		t.Errorf("quotas decode to %+v, %v", back, err)
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := msgpack.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
