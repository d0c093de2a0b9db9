package runtime

import (
	"sort"

	"github.com/vmihailenco/msgpack/v5"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"

	"github.com/caldera-scheduler/caldera/abi"
)

// wireBudgets is View.disruptionBudgets (1.8): the budgets in namespace
// and name order.
func wireBudgets(pdbs []*policyv1.PodDisruptionBudget) []abi.DisruptionBudget {
	out := make([]abi.DisruptionBudget, 0, len(pdbs))
	for _, p := range pdbs {
		b := abi.DisruptionBudget{Namespace: p.Namespace, Name: p.Name, DisruptionsAllowed: p.Status.DisruptionsAllowed}
		if s := p.Spec.Selector; s != nil {
			b.Selector = &abi.Selector{}
			for _, k := range sortedKeys(s.MatchLabels, nil) {
				b.Selector.Requirements = append(b.Selector.Requirements,
					abi.NodeSelectorRequirement{Key: k, Operator: "In", Values: []string{s.MatchLabels[k]}})
			}
			for _, e := range s.MatchExpressions {
				b.Selector.Requirements = append(b.Selector.Requirements,
					abi.NodeSelectorRequirement{Key: e.Key, Operator: string(e.Operator), Values: e.Values})
			}
		}
		for pod := range p.Status.DisruptedPods {
			b.DisruptedPods = append(b.DisruptedPods, pod)
		}
		sort.Strings(b.DisruptedPods)
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// wireQuotas is View.resourceQuotas (1.8): each quota's status in
// namespace and name order, quantities as their MilliValue.
func wireQuotas(status map[string]map[string]v1.ResourceQuotaStatus) []abi.ResourceQuota {
	var out []abi.ResourceQuota
	for _, ns := range sortedKeys(status, nil) {
		for _, name := range sortedKeys(status[ns], nil) {
			st := status[ns][name]
			out = append(out, abi.ResourceQuota{Namespace: ns, Name: name, Hard: milliValues(st.Hard), Used: milliValues(st.Used)})
		}
	}
	return out
}

func milliValues(rl v1.ResourceList) map[string]int64 {
	if len(rl) == 0 {
		return nil
	}
	out := make(map[string]int64, len(rl))
	for n, q := range rl {
		out[string(n)] = q.MilliValue()
	}
	return out
}

// encodeBudgets encodes View.disruptionBudgets by hand, as reflection
// would; nil for none, which leaves the field out.
func encodeBudgets(bs []abi.DisruptionBudget) msgpack.RawMessage {
	if len(bs) == 0 {
		return nil
	}
	b := appendArrayLen(nil, len(bs))
	for i := range bs {
		x := &bs[i]
		b = appendMapLen(b, 3+countTrue(x.Selector != nil, len(x.DisruptedPods) > 0))
		b = appendStr(appendStr(b, "namespace"), x.Namespace)
		b = appendStr(appendStr(b, "name"), x.Name)
		b = appendSelectorField(b, "selector", x.Selector)
		b = appendInt32Field(b, "disruptionsAllowed", x.DisruptionsAllowed)
		b = appendStrsField(b, "disruptedPods", x.DisruptedPods)
	}
	return b
}

// encodeQuotas encodes View.resourceQuotas by hand, map keys in order (the
// reflection encoder leaves them in map order); nil for none.
func encodeQuotas(qs []abi.ResourceQuota) msgpack.RawMessage {
	if len(qs) == 0 {
		return nil
	}
	b := appendArrayLen(nil, len(qs))
	for i := range qs {
		q := &qs[i]
		b = appendMapLen(b, 2+countTrue(len(q.Hard) > 0, len(q.Used) > 0))
		b = appendStr(appendStr(b, "namespace"), q.Namespace)
		b = appendStr(appendStr(b, "name"), q.Name)
		b = appendMilliMapField(b, "hard", q.Hard)
		b = appendMilliMapField(b, "used", q.Used)
	}
	return b
}

func appendMilliMapField(b []byte, key string, m map[string]int64) []byte {
	if len(m) == 0 {
		return b
	}
	b = appendMapLen(appendStr(b, key), len(m))
	for _, k := range sortedKeys(m, nil) {
		b = appendInt64(appendStr(b, k), m[k])
	}
	return b
}
