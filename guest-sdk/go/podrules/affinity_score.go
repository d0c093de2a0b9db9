package podrules

import (
	"math"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

// maxNodeScore is kube-scheduler's framework.MaxNodeScore.
const maxNodeScore int64 = 100

// AffinityScore is the InterPodAffinity score's state for one template:
// kube-scheduler's PreScore topology scores, kept current with the Index.
type AffinityScore struct {
	follower
	namespace        string
	labels, nsLabels map[string]string
	preferredAff     []term
	preferredAnti    []term
	// hardWeight is hardPodAffinityWeight: what an existing pod's required
	// affinity term that selects the task adds.
	hardWeight int32
	// Err is the task's AffinityError: scoring the task then fails.
	Err string

	scores map[string]map[string]int64 // topology key -> value -> score
}

// NewAffinityScore builds the score state for a task.
func NewAffinityScore(idx *Index, t *caldera.Task, hardWeight int32) *AffinityScore {
	s := &AffinityScore{namespace: t.Namespace, labels: t.Labels, nsLabels: idx.namespaces[t.Namespace],
		hardWeight: hardWeight, Err: t.AffinityError}
	if s.Err != "" {
		return s
	}
	s.preferredAff = idx.resolveWeighted(preferred(t.PodAffinity))
	s.preferredAnti = idx.resolveWeighted(preferred(t.PodAntiAffinity))
	s.scores = map[string]map[string]int64{}
	// Existing pods' terms, and pods the task's preferred terms can select.
	var src sources
	idx.scoring.selectors(&src, t.Labels)
	src.anyTerm(idx, s.preferredAff)
	src.anyTerm(idx, s.preferredAnti)
	s.start(idx, src.list(), s)
	return s
}

func (s *AffinityScore) add(key string, weight int64, labels map[string]string) {
	v, ok := labels[key]
	if !ok {
		return
	}
	m := s.scores[key]
	if m == nil {
		m = map[string]int64{}
		s.scores[key] = m
	}
	m[v] += weight
}

// apply adds (d = 1) or takes back (d = -1) what one existing pod
// contributes, as kube-scheduler's processExistingPod.
func (s *AffinityScore) apply(p *Pod, d int64) {
	labels := s.idx.nodeLabels(p.Node)
	if len(labels) == 0 {
		return
	}
	for i := range s.preferredAff {
		if t := &s.preferredAff[i]; t.matches(p.Namespace, p.Labels) {
			s.add(t.key, int64(t.weight)*d, labels)
		}
	}
	for i := range s.preferredAnti {
		if t := &s.preferredAnti[i]; t.matches(p.Namespace, p.Labels) {
			s.add(t.key, -int64(t.weight)*d, labels)
		}
	}
	if s.hardWeight > 0 {
		for _, t := range required(p.Affinity) {
			if existingMatches(&t, s.namespace, s.nsLabels, s.labels) {
				s.add(t.TopologyKey, int64(s.hardWeight)*d, labels)
			}
		}
	}
	for _, t := range preferred(p.Affinity) {
		if existingMatches(&t.Term, s.namespace, s.nsLabels, s.labels) {
			s.add(t.Term.TopologyKey, int64(t.Weight)*d, labels)
		}
	}
	for _, t := range preferred(p.Anti) {
		if existingMatches(&t.Term, s.namespace, s.nsLabels, s.labels) {
			s.add(t.Term.TopologyKey, -int64(t.Weight)*d, labels)
		}
	}
}

// Score writes each node's normalised score (0..100) into out; false when
// no term has ever contributed, in which case every node scores 0.
func (s *AffinityScore) Score(nodes []*caldera.Node, out []int64) bool {
	s.catchUp(s)
	if len(s.scores) == 0 {
		return false
	}
	minCount, maxCount := int64(math.MaxInt64), int64(math.MinInt64)
	for i, n := range nodes {
		var score int64
		for key, values := range s.scores {
			if v, ok := n.Labels[key]; ok {
				score += values[v]
			}
		}
		out[i] = score
		minCount, maxCount = min(minCount, score), max(maxCount, score)
	}
	diff := maxCount - minCount
	for i := range nodes {
		f := float64(0)
		if diff > 0 {
			f = float64(maxNodeScore) * (float64(out[i]-minCount) / float64(diff))
		}
		out[i] = int64(f)
	}
	return true
}
