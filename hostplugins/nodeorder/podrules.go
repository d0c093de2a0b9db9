package nodeorder

import (
	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
	"github.com/caldera-scheduler/caldera/scheduler/podrules"
)

// podRules holds the InterPodAffinity and PodTopologySpread score states
// of a session, one per rule template.
type podRules struct {
	idx    *podrules.Index
	scores *podrules.Templates[*ruleScores]

	nodes []*podrules.Node // scratch for one BatchNodeOrder call
}

type ruleScores struct {
	affinity *podrules.AffinityScore
	spread   *podrules.SpreadScore
}

func newPodRules(ssn *framework.Session, w Weights) *podRules {
	idx := podrules.NewIndex(ssn.NodeList, ssn.NamespaceLabels)
	build := func(pod *v1.Pod) *ruleScores {
		s := &ruleScores{}
		if w.PodAffinity != 0 {
			s.affinity = podrules.NewAffinityScore(idx, pod, int32(w.HardPodAffinity))
		}
		if w.PodTopologySpread != 0 {
			s.spread = podrules.NewSpreadScore(idx, pod, ssn.SpreadDefaults(pod))
		}
		return s
	}
	// Pods of one template share states only when their default spread
	// selectors are equal too.
	defaults := func(pod *v1.Pod) string {
		if sel := ssn.SpreadDefaults(pod); sel != nil {
			return sel.String()
		}
		return ""
	}
	return &podRules{idx: idx, scores: podrules.NewTemplatesKeyed(build, defaults)}
}

// errPodRules is kube-scheduler's PreScore failure for a pod whose terms or
// constraints do not parse; Volcano then scores no node for the task.
type errPodRules struct{ plugin, msg string }

func (e errPodRules) Error() string { return e.plugin + " PreScore: " + e.msg }

// add scores the candidates with both rules, weighted, into totals.
func (r *podRules) add(task *api.TaskInfo, nodes []*api.NodeInfo, w *Weights, raw []int64, add func([]int64, int)) error {
	s := r.scores.Of(task.Pod)
	if s.affinity != nil && s.affinity.Err != nil {
		return errPodRules{"InterPodAffinity", "failed to parse pod: " + s.affinity.Err.Error()}
	}
	if s.spread != nil && s.spread.Err != nil {
		return errPodRules{"PodTopologySpread", "calculating preScoreState: obtaining pod's soft topology spread constraints: " + s.spread.Err.Error()}
	}
	r.nodes = r.nodes[:0]
	for _, n := range nodes {
		nd := r.idx.NodeOf(n)
		if nd == nil {
			// A node outside the session has no pods the rules know of.
			return nil
		}
		r.nodes = append(r.nodes, nd)
	}
	if s.affinity != nil && s.affinity.Score(r.nodes, raw) {
		add(raw, w.PodAffinity)
	}
	if s.spread != nil && s.spread.Score(r.nodes, raw) {
		add(raw, w.PodTopologySpread)
	}
	return nil
}
