package caldera

import (
	"slices"
	"strconv"
)

// Node selection as Kubernetes defines it (k8s.io/component-helpers'
// nodeaffinity and the core API's Toleration.ToleratesTaint), for policies
// that filter or score by affinity and taints. The scheduler marks the terms
// its own parser rejects (NodeSelectorTerm.Invalid), so the rules of label
// syntax need not be repeated here.

// NodeNameField is the one node field a term's MatchFields can name.
const NodeNameField = "metadata.name"

// Matches reports whether the node satisfies every requirement of the term.
// An invalid term, and one without requirements, matches no node.
func (t *NodeSelectorTerm) Matches(n *Node) bool {
	if t.Invalid || (len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0) {
		return false
	}
	for i := range t.MatchExpressions {
		if !labelMatches(&t.MatchExpressions[i], n.Labels) {
			return false
		}
	}
	// kube-scheduler checks fields only of a node that has a name.
	if n.Name != "" {
		for i := range t.MatchFields {
			if !fieldMatches(&t.MatchFields[i], n.Name) {
				return false
			}
		}
	}
	return true
}

func labelMatches(r *NodeSelectorRequirement, labels map[string]string) bool {
	val, exists := Label(labels, r.Key)
	switch r.Operator {
	case "In":
		return exists && slices.Contains(r.Values, val)
	case "NotIn":
		return !exists || !slices.Contains(r.Values, val)
	case "Exists":
		return exists
	case "DoesNotExist":
		return !exists
	case "Gt", "Lt":
		if !exists || len(r.Values) != 1 {
			return false
		}
		have, err := strconv.ParseInt(val, 10, 64)
		if err != nil {
			return false
		}
		want, err := strconv.ParseInt(r.Values[0], 10, 64)
		if err != nil {
			return false
		}
		if r.Operator == "Gt" {
			return have > want
		}
		return have < want
	}
	return false
}

// fieldMatches compares a field requirement (In or NotIn with one value,
// as the parser demands) with the node's fields, of which only
// metadata.name has a value.
func fieldMatches(r *NodeSelectorRequirement, nodeName string) bool {
	if len(r.Values) != 1 {
		return false
	}
	val := ""
	if r.Key == NodeNameField {
		val = nodeName
	}
	switch r.Operator {
	case "In":
		return val == r.Values[0]
	case "NotIn":
		return val != r.Values[0]
	}
	return false
}

// Tolerates is Kubernetes' Toleration.ToleratesTaint.
func (t *Toleration) Tolerates(taint *Taint) bool {
	if t.Effect != "" && t.Effect != taint.Effect {
		return false
	}
	if t.Key != "" && t.Key != taint.Key {
		return false
	}
	switch t.Operator {
	case "", "Equal":
		return t.Value == taint.Value
	case "Exists":
		return true
	}
	return false
}

// ToleratesAny reports whether one of the tolerations tolerates the taint.
func ToleratesAny(ts []Toleration, taint *Taint) bool {
	for i := range ts {
		if ts[i].Tolerates(taint) {
			return true
		}
	}
	return false
}

// Matches reports whether a set of labels satisfies every requirement of
// a label selector. A nil selector matches nothing; one without
// requirements matches everything (metav1.LabelSelectorAsSelector of a
// missing and of an empty selector).
func (s *Selector) Matches(labels map[string]string) bool {
	if s == nil {
		return false
	}
	for i := range s.Requirements {
		if !labelMatches(&s.Requirements[i], labels) {
			return false
		}
	}
	return true
}

// MatchesRequiredNodeAffinity reports whether the node satisfies the
// task's nodeSelector and required node affinity, as kube-scheduler's
// GetRequiredNodeAffinity(pod).Match does.
func (t *Task) MatchesRequiredNodeAffinity(n *Node) bool {
	for k, v := range t.NodeSelector {
		if have, ok := n.Labels[k]; !ok || have != v {
			return false
		}
	}
	if t.NodeAffinity == nil || t.NodeAffinity.Required == nil {
		return true
	}
	for i := range t.NodeAffinity.Required.Terms {
		if t.NodeAffinity.Required.Terms[i].Matches(n) {
			return true
		}
	}
	return false
}
