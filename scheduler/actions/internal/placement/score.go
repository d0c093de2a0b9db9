package placement

import (
	"sort"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Scorer scores feasible nodes for a task and picks among them. It keeps its
// buffers between tasks.
type Scorer struct {
	ssn    *framework.Session
	scores []float64
	order  []int
	buf    framework.ScoreBuffer
}

// NewScorer returns a scorer for the session.
func NewScorer(ssn *framework.Session) *Scorer { return &Scorer{ssn: ssn} }

// score fills s.scores for nodes; false when scoring failed, in which case
// Volcano has no candidate at all.
func (s *Scorer) score(task *api.TaskInfo, nodes []*api.NodeInfo) bool {
	if cap(s.scores) < len(nodes) {
		s.scores = make([]float64, len(nodes))
	}
	s.scores = s.scores[:len(nodes)]
	if !s.ssn.HasNodeOrder() {
		clear(s.scores)
		return true
	}
	return s.ssn.ScoreNodes(task, nodes, s.scores, &s.buf) == nil
}

// Best returns the best of several candidate nodes: a best-node plugin's
// pick if one picks, else the highest score. Volcano breaks ties at random;
// here the first tied node in search order wins, so that a session is
// reproducible (the rotating search start already spreads tasks). Nil when
// scoring failed.
func (s *Scorer) Best(task *api.TaskInfo, nodes []*api.NodeInfo) *api.NodeInfo {
	if len(nodes) == 0 || !s.score(task, nodes) {
		return nil
	}
	if s.ssn.HasBestNode() {
		byScore := make(map[float64][]*api.NodeInfo)
		for i, n := range nodes {
			byScore[s.scores[i]] = append(byScore[s.scores[i]], n)
		}
		if n := s.ssn.BestNodeFn(task, byScore); n != nil {
			return n
		}
	}
	best := 0
	for i := 1; i < len(nodes); i++ {
		if s.scores[i] > s.scores[best] {
			best = i
		}
	}
	return nodes[best]
}

// Sorted returns the nodes from the highest score to the lowest, nodes of
// equal score in search order; empty when scoring failed.
func (s *Scorer) Sorted(task *api.TaskInfo, nodes []*api.NodeInfo) []*api.NodeInfo {
	if len(nodes) == 0 || !s.score(task, nodes) {
		return nil
	}
	s.order = s.order[:0]
	for i := range nodes {
		s.order = append(s.order, i)
	}
	sort.SliceStable(s.order, func(a, b int) bool { return s.scores[s.order[a]] > s.scores[s.order[b]] })
	out := make([]*api.NodeInfo, len(nodes))
	for i, k := range s.order {
		out[i] = nodes[k]
	}
	return out
}

// ReadyNodes returns the session's nodes that can take tasks, in the
// session's order; the session's own slice when all can.
func ReadyNodes(ssn *framework.Session) []*api.NodeInfo {
	for i, n := range ssn.NodeList {
		if !n.Ready {
			out := append([]*api.NodeInfo(nil), ssn.NodeList[:i]...)
			for _, m := range ssn.NodeList[i+1:] {
				if m.Ready {
					out = append(out, m)
				}
			}
			return out
		}
	}
	return ssn.NodeList
}
