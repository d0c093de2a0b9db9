package main

import caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"

// OrderKeysLocal: a queue's key is its priority and its share of its
// deserved resources, fixed at session open, so only events on the tasks
// of its jobs change it.
func (*proportion) OrderKeysLocal() bool { return true }

// QueueOrderKey serves the queue with the higher priority first, then the
// one furthest below its deserved share. Shares change as tasks are placed,
// so keys are not declared stable.
func (p *proportion) QueueOrderKey(_ *caldera.Session, q *caldera.Queue) caldera.Key {
	k := p.keys[2*q.Handle : 2*q.Handle+2 : 2*q.Handle+2]
	k[0] = -float64(queuePriority(q))
	k[1] = 0
	if a := p.queues[q.Handle]; a != nil {
		k[1] = a.share
	}
	return k
}

// queuePriority is the queue's spec.priority: the native plugin orders
// queues by priority first, then by share.
func queuePriority(q *caldera.Queue) int32 { return q.Priority }

// Overused reports a queue that holds at least its deserved resources in
// every dimension.
func (p *proportion) Overused(_ *caldera.Session, q *caldera.Queue) bool {
	a := p.queues[q.Handle]
	if a == nil {
		return false
	}
	return a.deserved.lessEqual(a.allocated, zero)
}

// Allocatable reports whether the queue may take the task without going
// beyond its deserved share in what the task asks for.
func (p *proportion) Allocatable(_ *caldera.Session, q *caldera.Queue, t *caldera.Task) bool {
	p.req.reset()
	p.req.addView(&t.Request)
	return p.fits(q)
}

// Preemptive reports whether the queue may take all the candidates without
// going beyond its deserved share.
func (p *proportion) Preemptive(_ *caldera.Session, q *caldera.Queue, tasks []*caldera.Task) bool {
	p.req.reset()
	for _, t := range tasks {
		p.req.addView(&t.Request)
	}
	return p.fits(q)
}

// fits checks p.req against the queue's deserved share.
func (p *proportion) fits(q *caldera.Queue) bool {
	if !isOpen(q) {
		return false
	}
	a := p.queues[q.Handle]
	if a == nil {
		return false
	}
	p.held.copyFrom(a.allocated)
	p.held.add(&p.req)
	return fitsRequested(&p.held, &p.req, a.deserved)
}

// Reclaimable takes candidates, in the order given, from each queue while
// what the queue would still hold exceeds its deserved share in some
// dimension.
func (p *proportion) Reclaimable(s *caldera.Session, _ *caldera.Task, candidates []*caldera.Task) ([]*caldera.Task, bool) {
	p.gen++
	p.victims = p.victims[:0]
	for _, t := range candidates {
		a := p.queueOfTask(s, t)
		if a == nil {
			continue
		}
		if a.heldGen != p.gen {
			a.heldGen = p.gen
			a.held.copyFrom(a.allocated)
		}
		if !a.held.lessEqual(a.deserved, zero) {
			a.held.subView(&t.Request)
			p.victims = append(p.victims, t)
		}
	}
	return p.victims, true
}

// JobEnqueueable admits a job while its queue's capability has room for the
// job's minResources next to what the queue holds and has admitted, not
// counting what the queue holds beyond its jobs' minimums. A job without
// minResources asks for nothing and is permitted.
func (p *proportion) JobEnqueueable(s *caldera.Session, j *caldera.Job) caldera.Vote {
	if j.Queue < 0 || int(j.Queue) >= len(p.queues) || p.queues[j.Queue] == nil {
		return caldera.VoteAbstain
	}
	a := p.queues[j.Queue]
	if !isOpen(s.Queue(j.Queue)) {
		return caldera.VoteReject
	}
	minReq := p.minReq.setView(&j.MinResources)
	p.need.copyFrom(minReq)
	need := p.need.add(a.allocated).add(a.inqueue).sub(a.elastic)
	if fitsRequested(need, minReq, a.realCapability) {
		return caldera.VotePermit
	}
	return caldera.VoteReject
}

// JobEnqueued reserves an admitted job's minResources in its queue.
func (p *proportion) JobEnqueued(_ *caldera.Session, j *caldera.Job) {
	if j.Queue < 0 || int(j.Queue) >= len(p.queues) {
		return
	}
	if a := p.queues[j.Queue]; a != nil {
		a.inqueue.addView(&j.MinResources)
	}
}

// OnAllocate charges the task to its queue: placed, pipelined, or its
// eviction undone.
func (p *proportion) OnAllocate(s *caldera.Session, t *caldera.Task) {
	if a := p.queueOfTask(s, t); a != nil {
		a.allocated.addView(&t.Request)
		a.updateShare()
	}
}

// OnDeallocate credits the task back to its queue: taken off its node or
// evicted.
func (p *proportion) OnDeallocate(s *caldera.Session, t *caldera.Task) {
	if a := p.queueOfTask(s, t); a != nil {
		a.allocated.subView(&t.Request)
		a.updateShare()
	}
}

func (p *proportion) queueOfTask(s *caldera.Session, t *caldera.Task) *queueAttr {
	if t.Job < 0 || int(t.Job) >= len(s.View.Jobs) {
		return nil
	}
	q := s.Job(t.Job).Queue
	if q < 0 || int(q) >= len(p.queues) {
		return nil
	}
	return p.queues[q]
}
