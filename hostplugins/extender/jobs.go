package extender

import (
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// The job- and queue-level calls. managedResources does not limit them, as
// in Volcano: they are about jobs and queues, not one task's resources.

// Overused asks whether the queue uses more than its share. A required
// extender that fails says yes, so that the queue gets nothing more; an
// ignorable one says no (Volcano's answers).
func (p *Plugin) Overused(queue *api.QueueInfo) bool {
	var resp queueOverusedResponse
	o, _ := p.ask(QueueOverused, func(e *encoder) any { return &queueRequest{Queue: e.queue(queue)} }, &resp)
	switch o {
	case absent, failedIgnorable:
		return false
	case failedRequired:
		return true
	}
	return resp.Overused
}

// JobEnqueueable votes on admitting a pending job, as Volcano reads the
// answer: a positive status permits, a negative one rejects, 0 abstains. A
// required extender that fails rejects; an ignorable one permits, as in
// Volcano (with extender.failFast it abstains, as if it were not there).
func (p *Plugin) JobEnqueueable(job *api.JobInfo) framework.Vote {
	var resp voteResponse
	o, _ := p.ask(JobEnqueueable, func(e *encoder) any { return &jobRequest{Job: e.job(job)} }, &resp)
	switch o {
	case absent:
		return framework.Abstain
	case failedIgnorable:
		return framework.Permit
	case failedRequired:
		return framework.Reject
	}
	switch {
	case resp.Status > 0:
		return framework.Permit
	case resp.Status < 0:
		return framework.Reject
	}
	return framework.Abstain
}

// JobEnqueued tells the extender a job was admitted. The answer decides
// nothing, but it is decoded as in Volcano (an empty body is a failure,
// logged and counted).
func (p *Plugin) JobEnqueued(job *api.JobInfo) {
	var resp struct{}
	_, _ = p.ask(JobEnqueued, func(e *encoder) any { return &jobRequest{Job: e.job(job)} }, &resp)
}

// JobReady asks whether the job may be committed. On a failure Volcano
// answers "ready" for a required extender and "not ready" for an ignorable
// one, and so does this; with extender.failClosed a required extender says
// "not ready", and with extender.failFast an ignorable one that left the
// session says "ready", as if it were not configured.
func (p *Plugin) JobReady(job *api.JobInfo) bool {
	var resp jobReadyResponse
	o, _ := p.ask(JobReady, func(e *encoder) any { return &jobRequest{Job: e.job(job)} }, &resp)
	switch o {
	case absent:
		return true
	case failedIgnorable:
		return false
	case failedRequired:
		return !p.cfg.FailClosed
	}
	return resp.Status
}
