package main

import (
	"strconv"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

// Node selector matching as k8s.io/component-helpers' nodeaffinity does it.
// The scheduler marks the terms its parser rejects (Invalid); such a term,
// and one without requirements, matches no node.

// nodeNameField is the one node field a term can name.
const nodeNameField = "metadata.name"

// termMatches reports whether the node satisfies every requirement of the term.
func termMatches(t *caldera.NodeSelectorTerm, n *caldera.Node) bool {
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

func labelMatches(r *caldera.NodeSelectorRequirement, labels map[string]string) bool {
	val, exists := labels[r.Key]
	switch r.Operator {
	case "In":
		return exists && contains(r.Values, val)
	case "NotIn":
		return !exists || !contains(r.Values, val)
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
func fieldMatches(r *caldera.NodeSelectorRequirement, nodeName string) bool {
	if len(r.Values) != 1 {
		return false
	}
	val := ""
	if r.Key == nodeNameField {
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

func contains(values []string, v string) bool {
	for _, s := range values {
		if s == v {
			return true
		}
	}
	return false
}

// tolerates is Kubernetes' Toleration.ToleratesTaint.
func tolerates(t *caldera.Toleration, taint *caldera.Taint) bool {
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

func toleratesAny(ts []caldera.Toleration, taint *caldera.Taint) bool {
	for i := range ts {
		if tolerates(&ts[i], taint) {
			return true
		}
	}
	return false
}
