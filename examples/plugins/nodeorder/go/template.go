package main

import (
	"encoding/binary"
	"errors"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

// entry is what the strategies keep of one task.
type entry struct {
	tpl    *template
	scores *resourceScores
	// placedOn is the node of the task's latest placement in this session,
	// -1 when none: an undone placement has lost its node in the view.
	placedOn int32
}

// template holds what the affinity and taint scores read of a task, shared
// by the tasks whose preferred node affinity and tolerations are equal, and
// those scores per node, computed once.
type template struct {
	// preferred is nil when the pod has no preferred node affinity, which
	// makes kube-scheduler skip the affinity score. Terms of weight 0 and
	// terms without requirements are left out, as kube-scheduler does (so
	// it may be empty, not nil: every node then scores 0).
	preferred []caldera.PreferredTerm
	// err is set when kube-scheduler cannot parse a preferred term: scoring
	// the task fails.
	err error
	// tolerations are those that can tolerate a PreferNoSchedule taint.
	tolerations []caldera.Toleration

	nodeCount int
	// Per node handle, score plus one; 0 means not yet computed.
	affinity, taints []int64
}

var errPreferredTerm = errors.New("nodeorder: a preferred node affinity term of the pod does not parse")

func newTemplate(t *caldera.Task, nodeCount int) *template {
	tpl := &template{nodeCount: nodeCount}
	if t.NodeAffinity != nil && len(t.NodeAffinity.Preferred) > 0 {
		tpl.preferred = make([]caldera.PreferredTerm, 0, len(t.NodeAffinity.Preferred))
		for _, pt := range t.NodeAffinity.Preferred {
			if pt.Weight == 0 || (len(pt.Term.MatchExpressions) == 0 && len(pt.Term.MatchFields) == 0) {
				continue
			}
			if pt.Term.Invalid {
				tpl.err = errPreferredTerm
			}
			tpl.preferred = append(tpl.preferred, pt)
		}
	}
	for _, tol := range t.Tolerations {
		if tol.Effect == "" || tol.Effect == "PreferNoSchedule" {
			tpl.tolerations = append(tpl.tolerations, tol)
		}
	}
	return tpl
}

// affinityScore is kube-scheduler's NodeAffinity score before
// normalisation: the summed weights of the preferred terms the node matches.
func (t *template) affinityScore(n *caldera.Node) int64 {
	if t.affinity == nil {
		t.affinity = make([]int64, t.nodeCount)
	}
	slot := &t.affinity[n.Handle]
	if *slot == 0 {
		var score int64
		for i := range t.preferred {
			if t.preferred[i].Term.Matches(n) {
				score += int64(t.preferred[i].Weight)
			}
		}
		*slot = score + 1
	}
	return *slot - 1
}

// taintScore is kube-scheduler's TaintToleration score before
// normalisation: the node's PreferNoSchedule taints the pod does not
// tolerate.
func (t *template) taintScore(n *caldera.Node) int64 {
	if t.taints == nil {
		t.taints = make([]int64, t.nodeCount)
	}
	slot := &t.taints[n.Handle]
	if *slot == 0 {
		var count int64
		for i := range n.Taints {
			taint := &n.Taints[i]
			if taint.Effect == "PreferNoSchedule" && !caldera.ToleratesAny(t.tolerations, taint) {
				count++
			}
		}
		*slot = count + 1
	}
	return *slot - 1
}

// templateKey is equal for two tasks exactly when their preferred node
// affinity and tolerations are equal.
func templateKey(buf []byte, t *caldera.Task) []byte {
	if t.NodeAffinity == nil {
		buf = binary.AppendUvarint(buf, 0)
	} else {
		buf = binary.AppendUvarint(buf, uint64(len(t.NodeAffinity.Preferred))+1)
		for i := range t.NodeAffinity.Preferred {
			pt := &t.NodeAffinity.Preferred[i]
			buf = binary.AppendVarint(buf, int64(pt.Weight))
			buf = pt.Term.AppendKey(buf)
		}
	}
	return caldera.AppendTolerationsKey(buf, t.Tolerations)
}
