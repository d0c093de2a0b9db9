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
	// idle and future split the feasible nodes of one task, with their
	// positions in the session's node list when known.
	idle, future       []*api.NodeInfo
	idlePos, futurePos []int
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

// PickIdleFirst chooses among feasible nodes as Volcano's allocate does:
// the best of those whose idle resources fit the request, else the best of
// those that fit once releasing tasks are gone; nil when none fits.
// Positions, which may be nil, are the nodes' positions in the session's
// node list (Finder.Positions): with them the nodes are checked and scored
// without reading those whose answers are remembered.
func (s *Scorer) PickIdleFirst(task *api.TaskInfo, req *api.Fit, feasible []*api.NodeInfo, positions []int) *api.NodeInfo {
	s.idle, s.future = s.idle[:0], s.future[:0]
	s.idlePos, s.futurePos = s.idlePos[:0], s.futurePos[:0]
	gens := s.ssn.NodeGenerations()
	for k, n := range feasible {
		var idle bool
		if positions != nil {
			pos := positions[k]
			idle = req.FitsIdleAt(n, pos, gens[pos])
		} else {
			idle = req.FitsIdle(n)
		}
		switch {
		case idle:
			s.idle = append(s.idle, n)
			if positions != nil {
				s.idlePos = append(s.idlePos, positions[k])
			}
		case req.FitsFutureIdle(n):
			s.future = append(s.future, n)
			if positions != nil {
				s.futurePos = append(s.futurePos, positions[k])
			}
		}
	}
	for _, group := range []struct {
		nodes     []*api.NodeInfo
		positions []int
	}{{s.idle, s.idlePos}, {s.future, s.futurePos}} {
		switch len(group.nodes) {
		case 0:
			continue
		case 1:
			return group.nodes[0]
		}
		if positions != nil {
			s.ssn.SetPositions(group.nodes, group.positions)
		}
		n := s.Best(task, group.nodes)
		s.ssn.SetPositions(nil, nil)
		if n != nil {
			return n
		}
	}
	return nil
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
