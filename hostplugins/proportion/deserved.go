package proportion

import (
	"sort"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/resutil"
	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// computeDeserved hands the cluster out to the queues by weight, round after
// round, until every queue is satisfied or capped or nothing is left. Each
// round divides what the previous rounds left among the queues still asking;
// what a queue gets beyond its cap or request in a round returns to the pool
// for the next.
func (p *Plugin) computeDeserved() {
	remaining := p.total.Clone()
	met := map[api.QueueID]bool{}
	// Queues in ID order: the sums below are of fractions, and adding them
	// in map order would round differently from run to run.
	queues := make([]*queueAttr, 0, len(p.queues))
	for _, a := range p.queues {
		queues = append(queues, a)
	}
	sort.Slice(queues, func(i, j int) bool { return queues[i].id < queues[j].id })
	for {
		totalWeight := int32(0)
		for _, a := range queues {
			if !met[a.id] {
				totalWeight += a.weight
			}
		}
		if totalWeight == 0 {
			return
		}

		before := remaining.Clone()
		grown, shrunk := api.EmptyResource(), api.EmptyResource()
		// Every queue of a round sees the same remaining.
		for _, a := range queues {
			if met[a.id] {
				continue
			}
			old := a.deserved.Clone()
			a.deserved.Add(remaining.Clone().Multi(float64(a.weight) / float64(totalWeight)))
			a.deserved.MinDimensionResource(a.realCapability, api.Infinity)
			a.deserved.MinDimensionResource(a.Request, api.Zero)
			a.deserved = resutil.Max(a.deserved, a.guarantee)
			a.updateShare()

			if a.Request.LessEqual(a.deserved, api.Zero) || resutil.Identical(a.deserved, old) {
				met[a.id] = true
			}
			g, s := resutil.Diff(a.deserved, old)
			grown.Add(g)
			shrunk.Add(s)
		}

		remaining = api.ExceededPart(remaining.Clone().Add(shrunk), grown)
		if remaining.IsEmpty() || resutil.Identical(remaining, before) {
			return
		}
	}
}
