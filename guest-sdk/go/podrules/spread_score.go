package podrules

import (
	"math"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

// SpreadScore is the PodTopologySpread score's state for one template: the
// matching pods per domain over every node that counts, and per node for
// hostname constraints, kept current with the Index.
type SpreadScore struct {
	follower
	namespace string
	cs        []*caldera.SpreadConstraint
	// requireAll says nodes lacking any constraint's key are ignored; it
	// is false only for system default constraints.
	requireAll bool
	// Err is the error reading the task's constraints: scoring the task
	// then fails.
	Err string

	eligible [][]bool
	byPair   map[topologyPair]int64
	// perNode[c][node] is the matching pods on the node, for hostname
	// constraints.
	perNode [][]int64

	// scratch for Score
	ignored []bool
	values  map[string]struct{}
}

// NewSpreadScore builds the score state for a task from its
// ScheduleAnyway constraints (its system defaults when SpreadDefaulted).
func NewSpreadScore(idx *Index, t *caldera.Task) *SpreadScore {
	s := &SpreadScore{namespace: t.Namespace, requireAll: !t.SpreadDefaulted}
	s.cs, s.Err = constraintsOf(t, "ScheduleAnyway")
	if s.Err != "" || len(s.cs) == 0 {
		return s
	}
	s.eligible = make([][]bool, len(s.cs))
	s.perNode = make([][]int64, len(s.cs))
	for i, c := range s.cs {
		s.eligible[i] = make([]bool, len(idx.nodes))
		if c.TopologyKey == hostnameKey {
			s.perNode[i] = make([]int64, len(idx.nodes))
		}
	}
	s.byPair = map[topologyPair]int64{}
	for ni := range idx.nodes {
		n := &idx.nodes[ni]
		if s.requireAll && !hasAllKeys(n.Labels, s.cs) {
			continue
		}
		for i, c := range s.cs {
			if includes(c, t, n) {
				s.eligible[i][ni] = true
			}
		}
	}
	var src sources
	for _, c := range s.cs {
		src.add(idx.selecting(c.Selector))
	}
	s.start(idx, src.list(), s)
	return s
}

func (s *SpreadScore) apply(p *Pod, d int64) {
	labels := s.idx.nodeLabels(p.Node)
	for i, c := range s.cs {
		if !counted(c, p, s.namespace) {
			continue
		}
		if s.perNode[i] != nil {
			s.perNode[i][p.Node] += d
		}
		if v, ok := labels[c.TopologyKey]; ok && s.eligible[i][p.Node] {
			s.byPair[topologyPair{c.TopologyKey, v}] += d
		}
	}
}

// Score writes each candidate node's normalised score (0..100) into out;
// false when the task has no ScheduleAnyway constraint.
func (s *SpreadScore) Score(nodes []*caldera.Node, out []int64) bool {
	if len(s.cs) == 0 {
		return false
	}
	s.catchUp(s)
	if cap(s.ignored) < len(nodes) {
		s.ignored = make([]bool, len(nodes))
	}
	ignored := s.ignored[:len(nodes)]
	kept := 0
	for i, n := range nodes {
		ignored[i] = s.requireAll && !hasAllKeys(n.Labels, s.cs)
		if !ignored[i] {
			kept++
		}
	}
	// Each constraint's weight depends on how many domains the candidates
	// span (every candidate is one domain for hostname).
	weights := make([]float64, len(s.cs))
	for ci, c := range s.cs {
		size := kept
		if c.TopologyKey != hostnameKey {
			if s.values == nil {
				s.values = map[string]struct{}{}
			}
			clear(s.values)
			for i, n := range nodes {
				if !ignored[i] {
					s.values[n.Labels[c.TopologyKey]] = struct{}{}
				}
			}
			size = len(s.values)
		}
		weights[ci] = math.Log(float64(size + 2))
	}
	minScore, maxScore := int64(math.MaxInt64), int64(0)
	for i, n := range nodes {
		if ignored[i] {
			continue
		}
		var score float64
		for ci, c := range s.cs {
			v, ok := n.Labels[c.TopologyKey]
			if !ok {
				continue
			}
			var cnt int64
			if c.TopologyKey == hostnameKey {
				cnt = s.perNode[ci][n.Handle]
			} else {
				cnt = s.byPair[topologyPair{c.TopologyKey, v}]
			}
			score += float64(cnt)*weights[ci] + float64(c.MaxSkew-1)
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
