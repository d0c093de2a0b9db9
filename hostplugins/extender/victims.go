package extender

import (
	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// Preemptable asks which of the preemptees the preemptor may evict.
func (p *Plugin) Preemptable(preemptor *api.TaskInfo, preemptees []*api.TaskInfo) ([]*api.TaskInfo, bool) {
	return p.victims(Preemptable, preemptor, preemptees)
}

// Reclaimable asks which of the reclaimees the reclaimer may evict.
func (p *Plugin) Reclaimable(reclaimer *api.TaskInfo, reclaimees []*api.TaskInfo) ([]*api.TaskInfo, bool) {
	return p.victims(Reclaimable, reclaimer, reclaimees)
}

// victims makes either eviction call. The extender abstains with status 0;
// any other status is a vote, and the victims it lists are matched to the
// candidates by UID (a UID that is not a candidate is dropped), so that the
// framework evicts the session's own tasks, never decoded copies. A vote
// with no victims vetoes eviction in this tier.
//
// A failed call is a vote with no victims under both policies, as in
// Volcano (which answers "reject" for a required extender and "permit" for
// an ignorable one, both without victims). An extender that sits the
// session out abstains.
func (p *Plugin) victims(call Call, evictor *api.TaskInfo, candidates []*api.TaskInfo) ([]*api.TaskInfo, bool) {
	if !p.interested(evictor) {
		return nil, false
	}
	var resp evictResponse
	o, _ := p.ask(call, func(e *encoder) any {
		req := &evictRequest{Evictor: e.task(evictor), Evictees: make([]*wireTask, len(candidates))}
		for i, c := range candidates {
			req.Evictees[i] = e.task(c)
		}
		return req
	}, &resp)
	switch o {
	case absent:
		return nil, false
	case failedIgnorable, failedRequired:
		return nil, true
	}
	if resp.Status == 0 {
		return nil, false
	}
	chosen := make(map[api.TaskID]bool, len(resp.Victims))
	for _, v := range resp.Victims {
		chosen[v.UID] = true
	}
	var out []*api.TaskInfo
	for _, c := range candidates {
		if chosen[c.UID] {
			out = append(out, c)
		}
	}
	return out, true
}
