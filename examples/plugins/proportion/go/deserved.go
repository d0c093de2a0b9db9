package main

// computeDeserved hands the cluster out to the queues by weight, round after
// round, until every queue is satisfied or capped or nothing is left. Each
// round divides what the previous rounds left among the queues still asking;
// what a queue gets beyond its cap or request in a round returns to the pool
// for the next. Queues go in handle order, which is name order, as the
// native plugin sorts them: the sums are of fractions and must round alike.
func (p *proportion) computeDeserved() {
	remaining := p.total.clone()
	met := make([]bool, len(p.queues))
	for {
		totalWeight := int32(0)
		for i, a := range p.queues {
			if a != nil && !met[i] {
				totalWeight += a.weight
			}
		}
		if totalWeight == 0 {
			return
		}

		before := remaining.clone()
		grown, shrunk := &resource{}, &resource{}
		// Every queue of a round sees the same remaining.
		for i, a := range p.queues {
			if a == nil || met[i] {
				continue
			}
			old := a.deserved.clone()
			a.deserved.add(remaining.clone().multi(float64(a.weight) / float64(totalWeight)))
			a.deserved.minDimension(a.realCapability, infinity)
			a.deserved.minDimension(a.request, zero)
			a.deserved = maxOf(a.deserved, a.guarantee)
			a.updateShare()

			if a.request.lessEqual(a.deserved, zero) || identical(a.deserved, old) {
				met[i] = true
			}
			g, s := diff(a.deserved, old)
			grown.add(g)
			shrunk.add(s)
		}

		remaining = exceededPart(remaining.clone().add(shrunk), grown)
		if remaining.isEmpty() || identical(remaining, before) {
			return
		}
	}
}

// updateShare recomputes the queue's largest allocated/deserved ratio over
// the dimensions it deserves (those not below the tolerance).
func (a *queueAttr) updateShare() {
	best := 0.0
	d := a.deserved
	if d.milliCPU >= minResource {
		if s := share(a.allocated.milliCPU, d.milliCPU); s > best {
			best = s
		}
	}
	if d.memory >= minResource {
		if s := share(a.allocated.memory, d.memory); s > best {
			best = s
		}
	}
	for _, e := range d.scalars {
		if e.q < minResource {
			continue
		}
		if s := share(a.allocated.scalars.value(e.name), e.q); s > best {
			best = s
		}
	}
	a.share = best
}
