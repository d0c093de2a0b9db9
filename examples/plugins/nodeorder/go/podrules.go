package main

import (
	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
	"github.com/caldera-scheduler/caldera/guest-sdk/go/podrules"
)

// rules holds the InterPodAffinity and PodTopologySpread score states of a
// session, one per rule template, made on first use. Nil when neither
// score can tell nodes apart in the session (no preferred terms, no
// required affinity, no ScheduleAnyway or default spread constraints: a
// session whose pods have only required anti-affinity and hard spread
// constraints scores as one without rules), or the weights are 0.
type rules struct {
	idx     *podrules.Index
	w       *weights
	byKey   caldera.ByKey[*ruleScores]
	byTask  []*ruleScores
	key     []byte
	scratch podrules.KeyScratch
}

type ruleScores struct {
	affinity *podrules.AffinityScore
	spread   *podrules.SpreadScore
}

func newRules(v *caldera.View, w *weights) *rules {
	if !podrules.ScoresAnything(v, w.podAffinity != 0, int32(w.hardPodAffinity), w.podTopologySpread != 0) {
		return nil
	}
	return &rules{idx: podrules.NewIndex(v), w: w, byTask: make([]*ruleScores, len(v.Tasks))}
}

func (r *rules) of(t *caldera.Task) *ruleScores {
	if s := r.byTask[t.Handle]; s != nil {
		return s
	}
	r.key = podrules.TemplateKey(r.key[:0], &r.scratch, t)
	s, ok := r.byKey.Get(r.key)
	if !ok {
		s = &ruleScores{}
		if r.w.podAffinity != 0 {
			s.affinity = podrules.NewAffinityScore(r.idx, t, int32(r.w.hardPodAffinity))
		}
		if r.w.podTopologySpread != 0 {
			s.spread = podrules.NewSpreadScore(r.idx, t)
		}
		r.byKey.Put(r.key, s)
	}
	r.byTask[t.Handle] = s
	return s
}

// errPodRules is kube-scheduler's PreScore failure for a task whose terms
// or constraints do not parse; no node is then scored for it.
type errPodRules struct{ plugin, msg string }

func (e errPodRules) Error() string { return e.plugin + " PreScore: " + e.msg }

// add scores the candidates with both rules, weighted, into scores. The
// states catch up with the session's placements as they score.
func (r *rules) add(task *caldera.Task, nodes []*caldera.Node, raw []int64, scores []float64) error {
	s := r.of(task)
	if s.affinity != nil && s.affinity.Err != "" {
		return errPodRules{"InterPodAffinity", "failed to parse pod: " + s.affinity.Err}
	}
	if s.spread != nil && s.spread.Err != "" {
		return errPodRules{"PodTopologySpread", "calculating preScoreState: obtaining pod's soft topology spread constraints: " + s.spread.Err}
	}
	if s.affinity != nil && s.affinity.Score(nodes, raw) {
		addWeighted(scores, raw, r.w.podAffinity)
	}
	if s.spread != nil && s.spread.Score(nodes, raw) {
		addWeighted(scores, raw, r.w.podTopologySpread)
	}
	return nil
}
