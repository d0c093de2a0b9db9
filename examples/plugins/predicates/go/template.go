package main

import (
	"encoding/binary"
	"slices"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

// verdict is the outcome of the stable filters for one (template, node):
// pass, unschedulable, affinityMismatch, or taintBase+i for the i-th taint
// of the node. Stored verdicts are offset by one so that 0 means "not yet".
type verdict uint32

const (
	pass verdict = iota
	unschedulable
	affinityMismatch
	taintBase
)

// template is what the filters read of a task, shared by the tasks whose
// node selector, node affinity, tolerations and host ports are equal (the
// pods of one gang, typically).
type template struct {
	nodeSelector map[string]string
	// required is nil when the pod has no required node affinity.
	required    *caldera.NodeSelector
	tolerations []caldera.Toleration
	// toleratesUnschedulable says the pod tolerates the taint that
	// spec.unschedulable stands for.
	toleratesUnschedulable bool
	// conflict says the required terms name nodes by metadata.name and no
	// node satisfies all of them.
	conflict bool
	ports    []caldera.HostPort

	// verdicts holds the stable filters' outcome per node handle, plus one;
	// made on first use.
	verdicts  []uint32
	nodeCount int
}

// unschedulableTaint is the taint spec.unschedulable stands for.
var unschedulableTaint = caldera.Taint{Key: "node.kubernetes.io/unschedulable", Effect: "NoSchedule"}

func newTemplate(t *caldera.Task, nodeCount int) *template {
	tpl := &template{
		nodeSelector: t.NodeSelector,
		tolerations:  t.Tolerations,
		ports:        t.HostPorts,
		nodeCount:    nodeCount,
	}
	if t.NodeAffinity != nil && t.NodeAffinity.Required != nil {
		tpl.required = t.NodeAffinity.Required
		tpl.conflict = nodeNamesConflict(tpl.required.Terms)
	}
	tpl.toleratesUnschedulable = caldera.ToleratesAny(t.Tolerations, &unschedulableTaint)
	return tpl
}

// nodeNamesConflict is kube-scheduler's NodeAffinity PreFilter conflict:
// every term restricts metadata.name with In, and the union over terms of
// the per-term intersections is empty. Invalid terms count as written.
func nodeNamesConflict(terms []caldera.NodeSelectorTerm) bool {
	if len(terms) == 0 {
		return false
	}
	union := map[string]bool{}
	for i := range terms {
		var names map[string]bool // nil until the term restricts the name
		for _, r := range terms[i].MatchFields {
			if r.Key != caldera.NodeNameField || r.Operator != "In" {
				continue
			}
			if names == nil {
				names = make(map[string]bool, len(r.Values))
				for _, v := range r.Values {
					names[v] = true
				}
				continue
			}
			for name := range names {
				if !slices.Contains(r.Values, name) {
					delete(names, name)
				}
			}
		}
		if names == nil {
			return false
		}
		for name := range names {
			union[name] = true
		}
	}
	return len(union) == 0
}

// verdict returns the stable filters' outcome, computed once per node.
func (t *template) verdict(n *caldera.Node, a *args) verdict {
	if t.verdicts == nil {
		t.verdicts = make([]uint32, t.nodeCount)
	}
	slot := &t.verdicts[n.Handle]
	if *slot != 0 {
		return verdict(*slot - 1)
	}
	v := t.evaluate(n, a)
	*slot = uint32(v) + 1
	return v
}

// evaluate runs NodeUnschedulable, NodeAffinity and TaintToleration.
func (t *template) evaluate(n *caldera.Node, a *args) verdict {
	if n.Unschedulable && !t.toleratesUnschedulable {
		return unschedulable
	}
	if a.nodeAffinity && !t.affinityMatches(n) {
		return affinityMismatch
	}
	if a.taintToleration {
		for i := range n.Taints {
			taint := &n.Taints[i]
			if doNotSchedule(taint) && !caldera.ToleratesAny(t.tolerations, taint) {
				return taintBase + verdict(i)
			}
		}
	}
	return pass
}

// affinityMatches checks spec.nodeSelector, then the required terms, ORed.
func (t *template) affinityMatches(n *caldera.Node) bool {
	for k, v := range t.nodeSelector {
		if have, ok := n.Labels[k]; !ok || have != v {
			return false
		}
	}
	if t.required == nil {
		return true
	}
	for i := range t.required.Terms {
		if t.required.Terms[i].Matches(n) {
			return true
		}
	}
	return false
}

func doNotSchedule(t *caldera.Taint) bool {
	return t.Effect == "NoSchedule" || t.Effect == "NoExecute"
}

// templateKey appends to buf a byte string that is equal for two tasks
// exactly when their node selector, required node affinity, tolerations and
// host ports are equal.
//
// keys holds the selector's sorted keys; the caller keeps it for the next
// task rather than making a slice per task.
func templateKey(buf []byte, keys *[]string, t *caldera.Task) []byte {
	*keys = (*keys)[:0]
	for k := range t.NodeSelector {
		*keys = append(*keys, k)
	}
	slices.Sort(*keys)
	buf = binary.AppendUvarint(buf, uint64(len(*keys)))
	for _, k := range *keys {
		buf = caldera.AppendKeyString(buf, k)
		buf = caldera.AppendKeyString(buf, t.NodeSelector[k])
	}
	if t.NodeAffinity == nil || t.NodeAffinity.Required == nil {
		buf = append(buf, 0)
	} else {
		terms := t.NodeAffinity.Required.Terms
		buf = append(buf, 1)
		buf = binary.AppendUvarint(buf, uint64(len(terms)))
		for i := range terms {
			buf = terms[i].AppendKey(buf)
		}
	}
	buf = caldera.AppendTolerationsKey(buf, t.Tolerations)
	buf = binary.AppendUvarint(buf, uint64(len(t.HostPorts)))
	for _, hp := range t.HostPorts {
		buf = caldera.AppendKeyString(buf, hp.IP)
		buf = caldera.AppendKeyString(buf, hp.Protocol)
		buf = binary.AppendVarint(buf, int64(hp.Port))
	}
	return buf
}
