package proportion

import (
	"cmp"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/resutil"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// QueueOrder serves the queue with the higher priority first, then the one
// furthest below its deserved share.
func (p *Plugin) QueueOrder(l, r *api.QueueInfo) int {
	if l.Priority != r.Priority {
		return int(r.Priority) - int(l.Priority)
	}
	return cmp.Compare(p.shareOf(l.UID), p.shareOf(r.UID))
}

// shareOf returns a queue's share; a queue without jobs has used nothing.
func (p *Plugin) shareOf(id api.QueueID) float64 {
	if a := p.queues[id]; a != nil {
		return a.share
	}
	return 0
}

// Overused reports a queue that holds at least its deserved resources in
// every dimension.
func (p *Plugin) Overused(q *api.QueueInfo) bool {
	a := p.queues[q.UID]
	if a == nil {
		return false
	}
	return a.deserved.LessEqual(a.Allocated, api.Zero)
}

// Allocatable reports whether the queue may take the task without going
// beyond its deserved share in what the task asks for.
func (p *Plugin) Allocatable(q *api.QueueInfo, candidate *api.TaskInfo) bool {
	return p.fits(q, []*api.TaskInfo{candidate})
}

// Preemptive reports whether the queue may take all the candidates without
// going beyond its deserved share.
func (p *Plugin) Preemptive(q *api.QueueInfo, candidates []*api.TaskInfo) bool {
	return p.fits(q, candidates)
}

func (p *Plugin) fits(q *api.QueueInfo, candidates []*api.TaskInfo) bool {
	if !q.IsOpen() {
		return false
	}
	a := p.queues[q.UID]
	if a == nil {
		return false
	}
	req := api.EmptyResource()
	for _, t := range candidates {
		if t != nil {
			req.Add(t.Resreq)
		}
	}
	ok, _ := resutil.FitsRequested(a.Allocated.Clone().Add(req), a.deserved, req)
	return ok
}

// Reclaimable takes candidates, in the order given, from each queue while
// what the queue would still hold exceeds its deserved share in some
// dimension.
func (p *Plugin) Reclaimable(_ *api.TaskInfo, reclaimees []*api.TaskInfo) ([]*api.TaskInfo, bool) {
	var victims []*api.TaskInfo
	holding := map[api.QueueID]*api.Resource{}
	for _, t := range reclaimees {
		job := p.ssn.Jobs[t.Job]
		if job == nil {
			continue
		}
		a := p.queues[job.Queue]
		if a == nil {
			continue
		}
		held, seen := holding[a.id]
		if !seen {
			held = a.Allocated.Clone()
			holding[a.id] = held
		}
		if !held.LessEqual(a.deserved, api.Zero) {
			held.Sub(t.Resreq)
			victims = append(victims, t)
		}
	}
	return victims, true
}

// JobEnqueueable admits a job while its queue's capability has room for the
// job's minResources next to what the queue holds and has admitted, not
// counting what the queue holds beyond its jobs' minimums.
func (p *Plugin) JobEnqueueable(job *api.JobInfo) framework.Vote {
	q := p.ssn.Queues[job.Queue]
	a := p.queues[job.Queue]
	if q == nil || a == nil {
		return framework.Abstain
	}
	if !q.IsOpen() {
		return framework.Reject
	}
	if !resutil.HasMinResources(job) {
		return framework.Permit
	}
	if a.AdmitsJob(p.ssn, job, a.realCapability) {
		return framework.Permit
	}
	return framework.Reject
}

// JobEnqueued reserves an admitted job's minResources in its queue.
func (p *Plugin) JobEnqueued(job *api.JobInfo) {
	if !resutil.HasMinResources(job) {
		return
	}
	if a := p.queues[job.Queue]; a != nil {
		a.Inqueue.Add(resutil.WithoutGated(job, job.GetMinResources()))
	}
}

// OnAllocate charges the task to its queue.
func (p *Plugin) OnAllocate(task *api.TaskInfo) {
	if a := p.queueOfTask(task); a != nil {
		a.Allocated.Add(task.Resreq)
		a.updateShare()
	}
}

// OnDeallocate credits the task back to its queue.
func (p *Plugin) OnDeallocate(task *api.TaskInfo) {
	if a := p.queueOfTask(task); a != nil {
		a.Allocated.Sub(task.Resreq)
		a.updateShare()
	}
}

func (p *Plugin) queueOfTask(task *api.TaskInfo) *queueAttr {
	job := p.ssn.Jobs[task.Job]
	if job == nil {
		return nil
	}
	return p.queues[job.Queue]
}
