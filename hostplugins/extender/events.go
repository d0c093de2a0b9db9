package extender

import (
	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// OnAllocate tells the extender a task was placed (allocated or pipelined)
// in the session, when allocateFuncVerb is set.
func (p *Plugin) OnAllocate(task *api.TaskInfo) { p.event(AllocateFunc, task) }

// OnDeallocate tells the extender a placement was undone or a task is being
// evicted, when deallocateFuncVerb is set.
func (p *Plugin) OnDeallocate(task *api.TaskInfo) { p.event(DeallocateFunc, task) }

// event sends a task event. Failures and error messages in the answer are
// logged and counted; unlike Volcano, they cannot undo the placement,
// because the framework's event handlers return nothing.
func (p *Plugin) event(call Call, task *api.TaskInfo) {
	if p.cfg.Verbs[call] == "" || !p.interested(task) {
		return
	}
	var resp eventResponse
	if err := p.notify(call, func(e *encoder) any { return &taskRequest{Task: e.task(task)} }, &resp); err != nil {
		return
	}
	if resp.ErrorMessage != "" {
		_ = p.answerError(call, resp.ErrorMessage)
	}
}
