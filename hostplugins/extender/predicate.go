package extender

import (
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Predicate asks whether the task may go on the node: one request per node
// with predicateVerb (Volcano's call), or one request per task covering
// every node with batchPredicateVerb.
func (p *Plugin) Predicate(task *api.TaskInfo, node *api.NodeInfo) *framework.Status {
	if !p.interested(task) {
		return nil
	}
	if p.cfg.Verbs[BatchPredicate] != "" {
		return p.batchPredicate(task, node)
	}
	var resp predicateResponse
	o, err := p.ask(Predicate, func(e *encoder) any {
		return &predicateRequest{Task: e.task(task), Node: e.node(node)}
	}, &resp)
	switch o {
	case absent, failedIgnorable:
		return nil
	case failedRequired:
		return framework.NewStatus(framework.Error, err.Error())
	}
	return verdict(resp)
}

// verdict turns an answer into a status. An empty message passes whatever
// the code says; a message with code 0 (an extender that only sets the
// message) or an unknown code is an Error, so that a message always rejects,
// as in Volcano.
func verdict(r predicateResponse) *framework.Status {
	if r.Status == "" {
		return nil
	}
	code := framework.Code(r.Code)
	switch code {
	case framework.Unschedulable, framework.UnschedulableAndUnresolvable, framework.Wait:
	default:
		code = framework.Error
	}
	return framework.NewStatus(code, r.Status)
}

// batchAnswers remembers one task's verdicts from its last batch request,
// each with the generation its node had then. The framework asks about
// nodes one at a time; the first question about a task (or about a node
// that changed since) sends the batch, and the rest are answered from here.
// Only the latest task is kept: actions finish one task's search before
// they start the next, and a revisited task costs one more request.
type batchAnswers struct {
	task  *api.TaskInfo
	nodes map[string]batchAnswer
}

type batchAnswer struct {
	generation uint64
	// code and reason are kept rather than a *Status, because the
	// framework writes the plugin name into the status it is given.
	code   framework.Code
	reason string
}

func (a batchAnswer) status() *framework.Status {
	if a.code == framework.Success {
		return nil
	}
	return framework.NewStatus(a.code, a.reason)
}

func (p *Plugin) batchPredicate(task *api.TaskInfo, node *api.NodeInfo) *framework.Status {
	if a, ok := p.lookupBatch(task, node); ok {
		return a.status()
	}
	nodes := p.batchNodes(node)
	var resp batchPredicateResponse
	o, err := p.ask(BatchPredicate, func(e *encoder) any {
		return &nodesRequest{Task: e.task(task), Nodes: e.nodes(nodes)}
	}, &resp)
	answers := make(map[string]batchAnswer, len(nodes))
	for _, n := range nodes {
		a := batchAnswer{generation: n.Generation}
		switch o {
		case failedRequired:
			// Remembered like an answer: an extender that failed is asked
			// again for the next task, not for every node of this one.
			a.code, a.reason = framework.Error, err.Error()
		case answered:
			if st := verdict(resp.NodeStatus[n.Name]); st != nil {
				a.code, a.reason = st.Code, st.Message()
			}
		}
		answers[n.Name] = a
	}
	p.mu.Lock()
	p.batch = batchAnswers{task: task, nodes: answers}
	p.mu.Unlock()
	return answers[node.Name].status()
}

func (p *Plugin) lookupBatch(task *api.TaskInfo, node *api.NodeInfo) (batchAnswer, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.batch.task != task {
		return batchAnswer{}, false
	}
	a, ok := p.batch.nodes[node.Name]
	return a, ok && a.generation == node.Generation
}

// batchNodes is every node of the session, plus the one asked about should
// it not be among them.
func (p *Plugin) batchNodes(asked *api.NodeInfo) []*api.NodeInfo {
	if p.ssn == nil {
		return []*api.NodeInfo{asked}
	}
	if i := asked.Index; i >= 0 && i < len(p.ssn.NodeList) && p.ssn.NodeList[i] == asked {
		return p.ssn.NodeList
	}
	return append(append([]*api.NodeInfo(nil), p.ssn.NodeList...), asked)
}
