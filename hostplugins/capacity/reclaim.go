package capacity

import (
	"github.com/caldera-scheduler/caldera/hostplugins/internal/resutil"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Reclaimable takes victims, in the session's victim order, from queues
// that hold more than they deserve in what the victim would give back, as
// long as the victim shares a resource with the reclaimer and its queue
// keeps its guarantee. A victim holding nothing its queue deserves is taken
// at once. With ancestorReclaimLevel in a tree, the victim's ancestors up to
// that many levels (those the reclaimer does not share) must also hold more
// than they deserve, so that no job is evicted between subtrees that are
// each within their share.
func (p *Plugin) Reclaimable(reclaimer *api.TaskInfo, reclaimees []*api.TaskInfo) ([]*api.TaskInfo, bool) {
	if p.broken != "" {
		return nil, true
	}
	rjob := p.ssn.Jobs[reclaimer.Job]
	if rjob == nil || p.queues[rjob.Queue] == nil {
		return nil, true
	}
	ra := p.queues[rjob.Queue]
	var victims []*api.TaskInfo
	// holding is what each queue would still hold once the victims chosen
	// so far are gone.
	holding := map[api.QueueID]*api.Resource{}
	held := func(a *queueAttr) *api.Resource {
		h, ok := holding[a.id]
		if !ok {
			h = a.Allocated.Clone()
			holding[a.id] = h
		}
		return h
	}
	for order := p.ssn.VictimQueue(reclaimees, reclaimer); !order.Empty(); {
		victim := order.Pop()
		job := p.ssn.Jobs[victim.Job]
		if job == nil {
			continue
		}
		a := p.queues[job.Queue]
		if a == nil || !resutil.Intersects(victim.Resreq, reclaimer.InitResreq, false) {
			continue
		}
		h := held(a)
		if !a.guarantee.LessEqual(h.Clone().Sub(victim.Resreq), api.Zero) {
			continue
		}
		if !p.eligible(victim, reclaimer, a, ra, h) {
			continue
		}
		ancestors, ok := p.ancestorsAbove(victim, a, ra, held)
		if !ok {
			continue
		}
		h.Sub(victim.Resreq)
		for _, anc := range ancestors {
			anc.Sub(victim.Resreq)
		}
		victims = append(victims, victim)
	}
	return victims, true
}

// eligible reports whether the victim's queue gives it up: it holds nothing
// the queue deserves, or the queue holds more than it deserves in some
// dimension the victim would give back. Under a shared ancestor within
// ancestorReclaimLevel, a victim holding nothing its queue deserves is not
// taken for a reclaimer whose queue deserves nothing it asks for either:
// neither side has a claim to settle.
func (p *Plugin) eligible(victim, reclaimer *api.TaskInfo, a, ra *queueAttr, held *api.Resource) bool {
	if !resutil.Intersects(victim.Resreq, a.deserved, true) {
		return !(p.hierarchy && p.ancestorReclaimLevel > 0 && p.shareAncestor(ra, a) &&
			!resutil.Intersects(reclaimer.Resreq, ra.deserved, true))
	}
	above, _ := resutil.AboveInSomeBounded(held, a.deserved, victim.Resreq)
	return above
}

// ancestorsAbove checks the victim queue's ancestors 1 to
// ancestorReclaimLevel levels up that the reclaimer's queue does not share
// at the same level: each must hold more than it deserves in what the
// victim gives back (or deserve nothing the victim holds). It returns what
// they would hold, to charge the victim to, and whether all passed.
func (p *Plugin) ancestorsAbove(victim *api.TaskInfo, a, ra *queueAttr, held func(*queueAttr) *api.Resource) ([]*api.Resource, bool) {
	if !p.hierarchy {
		return nil, true
	}
	var out []*api.Resource
	for level := 1; level <= p.ancestorReclaimLevel; level++ {
		id, ok := ancestorAt(a, level)
		if !ok || id == rootQueue {
			continue
		}
		if rid, ok := ancestorAt(ra, level); ok && rid == id {
			continue
		}
		anc := p.queues[id]
		if anc == nil {
			return nil, false
		}
		h := held(anc)
		out = append(out, h)
		if !resutil.Intersects(victim.Resreq, anc.deserved, true) {
			continue
		}
		if above, _ := resutil.AboveInSomeBounded(h, anc.deserved, victim.Resreq); !above {
			return nil, false
		}
	}
	return out, true
}

// shareAncestor reports whether two queues share an ancestor other than the
// root within ancestorReclaimLevel levels above each.
func (p *Plugin) shareAncestor(x, y *queueAttr) bool {
	mine := map[api.QueueID]bool{}
	for level := 1; level <= p.ancestorReclaimLevel; level++ {
		if id, ok := ancestorAt(x, level); ok && id != rootQueue {
			mine[id] = true
		}
	}
	for level := 1; level <= p.ancestorReclaimLevel; level++ {
		if id, ok := ancestorAt(y, level); ok && mine[id] {
			return true
		}
	}
	return false
}

// Evictable lets gangpreempt take every candidate (preemption stays within
// a queue). For gangreclaim it takes, in the order given, the candidates
// whose queue keeps its guarantee without them and either deserves nothing
// they hold or holds more than it deserves in something they would give
// back. Unlike Reclaimable it neither asks whether the victim shares a
// resource with the reclaimer nor checks ancestors, as Volcano v1.15's
// gang reclaim does not.
func (p *Plugin) Evictable(ctx *framework.EvictionContext, candidates []*api.TaskInfo) ([]*api.TaskInfo, bool) {
	if ctx.Kind == framework.EvictionGangPreempt {
		return candidates, true
	}
	if p.broken != "" {
		return nil, true
	}
	var victims []*api.TaskInfo
	holding := map[api.QueueID]*api.Resource{}
	for _, victim := range candidates {
		job := p.ssn.Jobs[victim.Job]
		if job == nil || p.queues[job.Queue] == nil {
			continue
		}
		a := p.queues[job.Queue]
		h, ok := holding[a.id]
		if !ok {
			h = a.Allocated.Clone()
			holding[a.id] = h
		}
		if !a.guarantee.LessEqual(h.Clone().Sub(victim.Resreq), api.Zero) {
			continue
		}
		if resutil.Intersects(victim.Resreq, a.deserved, true) {
			if above, _ := resutil.AboveInSomeBounded(h, a.deserved, victim.Resreq); !above {
				continue
			}
		}
		h.Sub(victim.Resreq)
		victims = append(victims, victim)
	}
	return victims, true
}
