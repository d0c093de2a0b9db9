package extender

import (
	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// BatchNodeOrder asks the extender to score the candidate nodes in one
// request and adds each node's score to scores; a node the answer leaves out
// scores 0. A required extender that fails, or any extender whose answer
// carries an error message or no scores, fails the scoring, and the task
// gets no node this time (Volcano's rule for a failed batch score).
func (p *Plugin) BatchNodeOrder(task *api.TaskInfo, nodes []*api.NodeInfo, scores []float64) error {
	if !p.interested(task) || len(nodes) == 0 {
		return nil
	}
	var resp prioritizeResponse
	o, err := p.ask(Prioritize, func(e *encoder) any {
		return &nodesRequest{Task: e.task(task), Nodes: e.nodes(nodes)}
	}, &resp)
	switch o {
	case absent, failedIgnorable:
		return nil
	case failedRequired:
		return err
	}
	if resp.ErrorMessage != "" || resp.NodeScore == nil {
		return p.answerError(Prioritize, resp.ErrorMessage)
	}
	for i, n := range nodes {
		scores[i] += resp.NodeScore[n.Name]
	}
	return nil
}
