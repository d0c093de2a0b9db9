package podrules

import (
	"math"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

// systemDefaults are kube-scheduler's system default spread constraints,
// hostname maxSkew 3 and zone maxSkew 5, over the pods selector selects.
func systemDefaults(selector labels.Selector) []constraint {
	return []constraint{
		{maxSkew: 3, key: v1.LabelHostname, selector: selector, minDomains: 1, honorAffinity: true},
		{maxSkew: 5, key: v1.LabelTopologyZone, selector: selector, minDomains: 1, honorAffinity: true},
	}
}

// SpreadScore is the PodTopologySpread score's state for one template: the
// matching pods per domain over every node that counts, and per node for
// hostname constraints, kept current with the Index.
type SpreadScore struct {
	follower
	pod *v1.Pod
	cs  []constraint
	// requireAll says nodes lacking any constraint's key are ignored; it
	// is false only for system default constraints.
	requireAll bool
	// Err is the error reading the pod's constraints; kube-scheduler's
	// PreScore then fails.
	Err error

	counts   []bool // counts[node]: the node's pods count at all
	eligible [][]bool
	byPair   map[topologyPair]int64
	// perNode[c][node] is the matching pods on the node, for hostname
	// constraints.
	perNode [][]int64

	// scratch for Score, which one goroutine calls at a time
	ignored []bool
	values  map[string]struct{}
}

// NewSpreadScore builds the score state for a pod from its ScheduleAnyway
// constraints, or, when it states none and defaults is not nil, from
// kube-scheduler's system default constraints over the pods defaults
// selects (see framework.Session.SpreadDefaults).
func NewSpreadScore(idx *Index, pod *v1.Pod, defaults labels.Selector) *SpreadScore {
	s := &SpreadScore{pod: pod}
	s.requireAll = true
	if len(pod.Spec.TopologySpreadConstraints) == 0 && defaults != nil {
		s.cs = systemDefaults(defaults)
		// Nodes without a zone label still count for hostname spreading.
		s.requireAll = false
	} else {
		cs, err := constraintsOf(pod, v1.ScheduleAnyway)
		if err != nil {
			s.Err = err
			return s
		}
		s.cs = cs
	}
	cs := s.cs
	if len(cs) == 0 {
		return s
	}
	required := nodeaffinity.GetRequiredNodeAffinity(pod)
	s.eligible = make([][]bool, len(cs))
	s.perNode = make([][]int64, len(cs))
	for i := range cs {
		s.eligible[i] = make([]bool, len(idx.nodes))
		if cs[i].key == v1.LabelHostname {
			s.perNode[i] = make([]int64, len(idx.nodes))
		}
	}
	s.byPair = map[topologyPair]int64{}
	for ni, nd := range idx.nodes {
		if s.requireAll && !hasAllKeys(nd.labels, cs) {
			continue
		}
		for i := range cs {
			if cs[i].includes(pod, nd, required) {
				s.eligible[i][ni] = true
			}
		}
	}
	s.start(idx, constraintSources(idx, cs), s.apply)
	return s
}

func (s *SpreadScore) apply(p *Pod, d int64) {
	nd := p.node
	for i := range s.cs {
		c := &s.cs[i]
		if !c.counted(p.pod, s.pod.Namespace) {
			continue
		}
		if s.perNode[i] != nil {
			s.perNode[i][nd.index] += d
		}
		if v, ok := nd.labels[c.key]; ok && s.eligible[i][nd.index] {
			s.byPair[topologyPair{c.key, v}] += d
		}
	}
}

// Score writes each candidate node's normalised score (0..100) into out;
// false when the pod has no ScheduleAnyway constraint and the score is
// skipped. It is called from one goroutine at a time.
func (s *SpreadScore) Score(nodes []*Node, out []int64) bool {
	if len(s.cs) == 0 {
		return false
	}
	s.catchUp(s.apply)
	if cap(s.ignored) < len(nodes) {
		s.ignored = make([]bool, len(nodes))
	}
	ignored := s.ignored[:len(nodes)]
	kept := 0
	for i, nd := range nodes {
		ignored[i] = s.requireAll && !hasAllKeys(nd.labels, s.cs)
		if !ignored[i] {
			kept++
		}
	}
	// Each constraint's weight depends on how many domains the candidates
	// span (every candidate is one domain for hostname).
	weights := make([]float64, len(s.cs))
	for ci := range s.cs {
		c := &s.cs[ci]
		size := kept
		if c.key != v1.LabelHostname {
			if s.values == nil {
				s.values = map[string]struct{}{}
			}
			clear(s.values)
			for i, nd := range nodes {
				if !ignored[i] {
					s.values[nd.labels[c.key]] = struct{}{}
				}
			}
			size = len(s.values)
		}
		weights[ci] = math.Log(float64(size + 2))
	}
	minScore, maxScore := int64(math.MaxInt64), int64(0)
	for i, nd := range nodes {
		if ignored[i] {
			continue
		}
		var score float64
		for ci := range s.cs {
			c := &s.cs[ci]
			v, ok := nd.labels[c.key]
			if !ok {
				continue
			}
			var cnt int64
			if c.key == v1.LabelHostname {
				cnt = s.perNode[ci][nd.index]
			} else {
				cnt = s.byPair[topologyPair{c.key, v}]
			}
			score += float64(cnt)*weights[ci] + float64(c.maxSkew-1)
		}
		out[i] = int64(math.Round(score))
		minScore, maxScore = min(minScore, out[i]), max(maxScore, out[i])
	}
	for i := range nodes {
		switch {
		case ignored[i]:
			out[i] = 0
		case maxScore == 0:
			out[i] = maxNodeScore
		default:
			out[i] = maxNodeScore * (maxScore + minScore - out[i]) / maxScore
		}
	}
	return true
}
