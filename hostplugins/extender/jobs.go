package extender

import (
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// The job- and queue-level calls. managedResources does not limit them, as
// in Volcano: they are about jobs and queues, not one task's resources.

// Overused asks whether the queue uses more than its share. A required
// extender that fails says yes, so that the queue gets nothing more; an
// ignorable one says no.
func (p *Plugin) Overused(queue *api.QueueInfo) bool {
	var resp queueOverusedResponse
	o, _ := p.ask(QueueOverused, func(e *encoder) any { return &queueRequest{Queue: e.queue(queue)} }, &resp)
	switch o {
	case skipped:
		return false
	case failedClosed:
		return true
	}
	return resp.Overused
}

// JobEnqueueable votes on admitting a pending job: status 1 permits, -1
// rejects, anything else abstains. A required extender that fails rejects;
// an ignorable one abstains.
func (p *Plugin) JobEnqueueable(job *api.JobInfo) framework.Vote {
	var resp voteResponse
	o, _ := p.ask(JobEnqueueable, func(e *encoder) any { return &jobRequest{Job: e.job(job)} }, &resp)
	switch o {
	case skipped:
		return framework.Abstain
	case failedClosed:
		return framework.Reject
	}
	switch resp.Status {
	case 1:
		return framework.Permit
	case -1:
		return framework.Reject
	}
	return framework.Abstain
}

// JobEnqueued tells the extender a job was admitted. Its answer is not
// read: nothing depends on it.
func (p *Plugin) JobEnqueued(job *api.JobInfo) {
	_ = p.notify(JobEnqueued, func(e *encoder) any { return &jobRequest{Job: e.job(job)} }, nil)
}

// JobReady asks whether the job may be committed. A required extender that
// fails says no, so that nothing is committed without it; an ignorable one
// says yes. (Volcano answers the other way round on both counts, which
// commits jobs when a required extender is down.)
func (p *Plugin) JobReady(job *api.JobInfo) bool {
	var resp jobReadyResponse
	o, _ := p.ask(JobReady, func(e *encoder) any { return &jobRequest{Job: e.job(job)} }, &resp)
	switch o {
	case skipped:
		return true
	case failedClosed:
		return false
	}
	return resp.Status
}
