package capacity

import (
	"github.com/caldera-scheduler/caldera/hostplugins/internal/resutil"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// QueueOrder serves the queue with the higher priority first. Then, flat,
// the one furthest below its deserved resources (a best-effort queue,
// deserving nothing, after one that deserves something). In a tree, a
// queue without children goes before one with, and two queues without are
// compared by their ancestors just below the deepest one they share, so
// that a subtree's share decides before a leaf's.
func (p *Plugin) QueueOrder(l, r *api.QueueInfo) int {
	if l.Priority != r.Priority {
		return int(r.Priority) - int(l.Priority)
	}
	la, ra := p.queues[l.UID], p.queues[r.UID]
	if la == nil || ra == nil {
		return 0
	}
	if !p.hierarchy {
		return compareShare(la, ra)
	}
	switch {
	case la.isLeaf() && !ra.isLeaf():
		return -1
	case !la.isLeaf() && ra.isLeaf():
		return 1
	case !la.isLeaf() && !ra.isLeaf():
		return compareShare(la, ra)
	}
	level := sharedLevel(la, ra)
	return compareShare(p.queues[below(la, level)], p.queues[below(ra, level)])
}

// below is the queue's ancestor just under the one at level, or the queue
// itself when that ancestor is its parent.
func below(a *queueAttr, level int) api.QueueID {
	if level+1 < len(a.ancestors) {
		return a.ancestors[level+1]
	}
	return a.id
}

// sharedLevel is the index, in both queues' ancestors, of the deepest
// ancestor they share (0, the root, when they share no other).
func sharedLevel(l, r *queueAttr) int {
	level := 0
	for i := range min(len(l.ancestors), len(r.ancestors)) {
		if l.ancestors[i] != r.ancestors[i] {
			break
		}
		level = i
	}
	return level
}

// compareShare puts the smaller share first; between equal shares, a queue
// that deserves something before a best-effort one.
func compareShare(l, r *queueAttr) int {
	if l.share != r.share {
		if l.share < r.share {
			return -1
		}
		return 1
	}
	lHas, rHas := !l.deserved.IsEmpty(), !r.deserved.IsEmpty()
	switch {
	case lHas == rHas:
		return 0
	case lHas:
		return -1
	}
	return 1
}

// VictimQueueOrder, in a tree, takes victims first from the queue closest
// to the preemptor's: the one sharing the deeper ancestor with it.
func (p *Plugin) VictimQueueOrder(l, r, preemptor *api.QueueInfo) int {
	if !p.hierarchy {
		return 0
	}
	la, ra, pa := p.queues[l.UID], p.queues[r.UID], p.queues[preemptor.UID]
	if la == nil || ra == nil || pa == nil {
		return 0
	}
	ll, rl := sharedLevel(la, pa), sharedLevel(ra, pa)
	switch {
	case ll == rl:
		return 0
	case ll > rl:
		return -1
	}
	return 1
}

// Allocatable reports whether the queue, and every ancestor in a tree, has
// room within its real capability for the task, in what the task asks for.
// In a tree only queues without children take tasks.
func (p *Plugin) Allocatable(q *api.QueueInfo, candidate *api.TaskInfo) bool {
	if !q.IsOpen() || p.broken != "" {
		return false
	}
	a := p.queues[q.UID]
	if a == nil || p.hierarchy && !a.isLeaf() {
		return false
	}
	for _, id := range a.up {
		b := p.queues[id]
		future := b.Allocated.Clone().Add(candidate.Resreq)
		if ok, _ := resutil.FitsRequested(future, b.realCapability, candidate.Resreq); !ok {
			return false
		}
	}
	return true
}

// Preemptive reports whether the queue may reclaim for the candidates: they
// fit its real capability, and with them it would still hold no more than
// it deserves in some dimension they ask for (leaving out dimensions it
// neither holds nor deserves). With ancestorReclaimLevel, an ancestor up to
// that many levels above being below its deserved resources is enough.
func (p *Plugin) Preemptive(q *api.QueueInfo, candidates []*api.TaskInfo) bool {
	if p.broken != "" || !q.IsOpen() {
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
	future := a.Allocated.Clone().Add(req)
	if ok, _ := resutil.FitsRequested(future, a.realCapability, req); !ok {
		return false
	}
	if ok, _ := resutil.AtMostInSome(future, a.deserved, req); ok {
		return true
	}
	if !p.hierarchy {
		return false
	}
	for level := 1; level <= p.ancestorReclaimLevel; level++ {
		id, ok := ancestorAt(a, level)
		if !ok || id == rootQueue {
			continue
		}
		anc := p.queues[id]
		if ok, _ := resutil.AtMostInSome(anc.Allocated.Clone().Add(req), anc.deserved, req); ok {
			return true
		}
	}
	return false
}

// ancestorAt is the queue's ancestor level levels up (1 is the parent).
func ancestorAt(a *queueAttr, level int) (api.QueueID, bool) {
	if level <= 0 || len(a.ancestors) < level {
		return "", false
	}
	return a.ancestors[len(a.ancestors)-level], true
}

// JobEnqueueable admits a job while its queue, and every ancestor in a
// tree, has room within its real capability for the job's minResources
// next to what it holds and has admitted, not counting what it holds beyond
// its jobs' minimums.
func (p *Plugin) JobEnqueueable(job *api.JobInfo) framework.Vote {
	if p.broken != "" {
		return framework.Reject
	}
	q := p.ssn.Queues[job.Queue]
	a := p.queues[job.Queue]
	if q == nil || a == nil {
		return framework.Abstain
	}
	if p.hierarchy && !a.isLeaf() || !q.IsOpen() {
		return framework.Reject
	}
	if !resutil.HasMinResources(job) {
		return framework.Permit
	}
	for _, id := range a.up {
		if b := p.queues[id]; !b.AdmitsJob(p.ssn, job, b.realCapability) {
			return framework.Reject
		}
	}
	return framework.Permit
}

// JobEnqueued reserves an admitted job's minResources in its queue and
// every ancestor.
func (p *Plugin) JobEnqueued(job *api.JobInfo) {
	a := p.queues[job.Queue]
	if a == nil || !resutil.HasMinResources(job) {
		return
	}
	claim := resutil.WithoutGated(job, job.GetMinResources())
	for _, id := range a.up {
		p.queues[id].Inqueue.Add(claim)
	}
}

// OnAllocate charges the task to its queue and every ancestor. Only the
// queue's own share is brought up to date, as in Volcano: ancestors keep
// the share they opened the session with.
func (p *Plugin) OnAllocate(task *api.TaskInfo) {
	p.charge(task, func(r *api.Resource) { r.Add(task.Resreq) })
}

// OnDeallocate credits the task back to its queue and every ancestor.
func (p *Plugin) OnDeallocate(task *api.TaskInfo) {
	p.charge(task, func(r *api.Resource) { r.Sub(task.Resreq) })
}

func (p *Plugin) charge(task *api.TaskInfo, apply func(*api.Resource)) {
	job := p.ssn.Jobs[task.Job]
	if job == nil {
		return
	}
	a := p.queues[job.Queue]
	if a == nil {
		return
	}
	apply(a.Allocated)
	a.updateShare()
	if !p.hierarchy {
		return
	}
	for _, id := range a.ancestors {
		if anc := p.queues[id]; anc != nil {
			apply(anc.Allocated)
		}
	}
}
