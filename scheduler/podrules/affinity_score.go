package podrules

import (
	"math"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// maxNodeScore is kube-scheduler's framework.MaxNodeScore.
const maxNodeScore int64 = 100

// AffinityScore is the InterPodAffinity score's state for one template:
// kube-scheduler's PreScore topology scores, kept current with the Index.
type AffinityScore struct {
	follower
	pod      *v1.Pod
	terms    podTerms
	nsLabels labels.Set
	// hardWeight is hardPodAffinityWeight: what an existing pod's required
	// affinity term that selects the pod adds.
	hardWeight int32
	// Err is the pod's parse error; kube-scheduler's PreScore then fails.
	Err error

	scores map[string]map[string]int64 // topology key -> value -> score
}

// NewAffinityScore builds the score state for a pod.
func NewAffinityScore(idx *Index, pod *v1.Pod, hardWeight int32) *AffinityScore {
	s := &AffinityScore{pod: pod, nsLabels: idx.namespaceLabels(pod.Namespace), hardWeight: hardWeight}
	terms, err := parsePodTerms(pod)
	if err != nil {
		s.Err = err
		return s
	}
	terms.preferredAffinity = idx.resolveNamespaces(terms.preferredAffinity)
	terms.preferredAnti = idx.resolveNamespaces(terms.preferredAnti)
	s.terms = terms
	s.scores = map[string]map[string]int64{}
	// Existing pods' terms, and pods the pod's preferred terms can select.
	var src sources
	idx.scoring.selectors(&src, pod)
	src.anyTerm(idx, terms.preferredAffinity)
	src.anyTerm(idx, terms.preferredAnti)
	s.start(idx, src.list(), s.apply)
	return s
}

func (s *AffinityScore) add(t *term, weight int64, other *v1.Pod, nsLabels labels.Set, nd *Node) {
	if !t.matches(other, nsLabels) {
		return
	}
	v, ok := nd.labels[t.topologyKey]
	if !ok {
		return
	}
	m := s.scores[t.topologyKey]
	if m == nil {
		m = map[string]int64{}
		s.scores[t.topologyKey] = m
	}
	m[v] += weight
}

// apply adds (d = 1) or takes back (d = -1) what one existing pod
// contributes, as kube-scheduler's processExistingPod.
func (s *AffinityScore) apply(p *Pod, d int64) {
	nd := p.node
	if len(nd.labels) == 0 {
		return
	}
	for i := range s.terms.preferredAffinity {
		t := &s.terms.preferredAffinity[i]
		s.add(t, int64(t.weight)*d, p.pod, nil, nd)
	}
	for i := range s.terms.preferredAnti {
		t := &s.terms.preferredAnti[i]
		s.add(t, -int64(t.weight)*d, p.pod, nil, nd)
	}
	if s.hardWeight > 0 {
		for i := range p.terms.requiredAffinity {
			s.add(&p.terms.requiredAffinity[i], int64(s.hardWeight)*d, s.pod, s.nsLabels, nd)
		}
	}
	for i := range p.terms.preferredAffinity {
		t := &p.terms.preferredAffinity[i]
		s.add(t, int64(t.weight)*d, s.pod, s.nsLabels, nd)
	}
	for i := range p.terms.preferredAnti {
		t := &p.terms.preferredAnti[i]
		s.add(t, -int64(t.weight)*d, s.pod, s.nsLabels, nd)
	}
}

// Score writes each node's normalised score (0..100) into out; false when
// no term has ever contributed, in which case every node scores 0.
// kube-scheduler skips the score when no term contributes; a skipped score
// and one where every node ties at 0 add the same.
func (s *AffinityScore) Score(nodes []*Node, out []int64) bool {
	s.catchUp(s.apply)
	if len(s.scores) == 0 {
		return false
	}
	minCount, maxCount := int64(math.MaxInt64), int64(math.MinInt64)
	for i, nd := range nodes {
		var score int64
		for key, values := range s.scores {
			if v, ok := nd.labels[key]; ok {
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
