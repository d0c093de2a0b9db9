package extender

import (
	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// TryAllocate tells the extender a task was placed (allocated or pipelined)
// by a statement, when allocateFuncVerb is set, and refuses the placement,
// which the statement then undoes, as Volcano's Statement does when the
// callback sets Event.Err: when the answer carries an errorMessage, or when
// the call fails and the extender is required.
func (p *Plugin) TryAllocate(task *api.TaskInfo) error { return p.event(AllocateFunc, task) }

// OnAllocate tells the extender a task was placed where nothing can refuse
// it (backfill's session-level allocation, an eviction undone), as in
// Volcano; errors are logged and counted.
func (p *Plugin) OnAllocate(task *api.TaskInfo) { _ = p.event(AllocateFunc, task) }

// OnDeallocate tells the extender a placement was undone or a task is being
// evicted, when deallocateFuncVerb is set. Nothing can refuse that: errors
// are logged and counted.
func (p *Plugin) OnDeallocate(task *api.TaskInfo) { _ = p.event(DeallocateFunc, task) }

// event sends a task event and returns the refusal it amounts to.
func (p *Plugin) event(call Call, task *api.TaskInfo) error {
	if p.cfg.Verbs[call] == "" || !p.interested(task) {
		return nil
	}
	var resp eventResponse
	o, err := p.ask(call, func(e *encoder) any { return &taskRequest{Task: e.task(task)} }, &resp)
	switch o {
	case absent, failedIgnorable:
		return nil
	case failedRequired:
		return err
	}
	if resp.ErrorMessage != "" {
		return p.answerError(call, resp.ErrorMessage)
	}
	return nil
}
