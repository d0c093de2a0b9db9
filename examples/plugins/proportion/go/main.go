// Command proportion is the Wasm port of Caldera's native proportion plugin
// (Volcano's proportion): it divides the cluster between queues by weight,
// within each queue's capability and above its guarantee, and holds each
// queue to its deserved share when placing, admitting and reclaiming work.
package main

import (
	"math"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

func main() {}

func init() { caldera.Register(&proportion{}) }

// queueAttr is one queue's accounting for the session.
type queueAttr struct {
	weight int32
	share  float64

	deserved  *resource
	allocated *resource
	request   *resource
	// elastic is what the queue's jobs hold beyond their minResources.
	elastic *resource
	// inqueue is what admitted jobs still have a claim on.
	inqueue *resource
	// realCapability is the most the queue may ever get: its capability, or
	// the cluster less the other queues' guarantees, whichever is smaller.
	realCapability *resource
	guarantee      *resource

	// held is Reclaimable's scratch copy of allocated, valid for the call
	// whose generation heldGen holds.
	held    resource
	heldGen uint32
}

// proportion keeps one queueAttr per queue handle, nil for a queue without
// jobs.
type proportion struct {
	total  *resource
	queues []*queueAttr

	// Scratch reused from call to call: the hot hooks allocate nothing.
	keys []float64
	req  resource
	held resource
	// minReq and need are JobEnqueueable's, jobs OnSessionOpen's.
	minReq, need resource
	jobs         jobScratch
	gen          uint32
	victims      []*caldera.Task
}

func (*proportion) Name() string { return "proportion" }

// OnSessionOpen accounts for every queue with jobs and computes what each
// deserves. The plugin takes no arguments.
func (p *proportion) OnSessionOpen(s *caldera.Session) error {
	v := &s.View
	p.total = &resource{}
	for i := range v.Nodes {
		p.total.addView(&v.Nodes[i].Allocatable)
	}
	totalGuarantee := &resource{}
	for i := range v.Queues {
		totalGuarantee.addView(&v.Queues[i].Guarantee)
	}
	p.queues = make([]*queueAttr, len(v.Queues))
	p.keys = make([]float64, 2*len(v.Queues))
	p.gen = 0
	for i := range v.Jobs {
		j := &v.Jobs[i]
		if j.Queue < 0 || int(j.Queue) >= len(v.Queues) {
			continue
		}
		a := p.queues[j.Queue]
		if a == nil {
			a = newQueueAttr(&v.Queues[j.Queue], p.total, totalGuarantee)
			p.queues[j.Queue] = a
		}
		a.addJob(j, &p.jobs)
	}
	p.computeDeserved()
	return nil
}

func newQueueAttr(q *caldera.Queue, total, totalGuarantee *resource) *queueAttr {
	a := &queueAttr{
		weight:    q.Weight,
		deserved:  &resource{},
		allocated: &resource{},
		request:   &resource{},
		elastic:   &resource{},
		inqueue:   &resource{},
		guarantee: fromView(&q.Guarantee),
	}
	a.realCapability = exceededPart(total, totalGuarantee).add(a.guarantee)
	// A capability that names only other resources leaves cpu and memory
	// unbounded. The view sends no capability as all zeros, which this
	// leaves unbounded in every dimension, as the native plugin does.
	capability := fromView(&q.Capability)
	if capability.milliCPU <= 0 {
		capability.milliCPU = math.MaxFloat64
	}
	if capability.memory <= 0 {
		capability.memory = math.MaxFloat64
	}
	a.realCapability.minDimension(capability, infinity)
	return a
}

// jobScratch holds addJob's intermediate resources, reused from job to job
// and session to session: a session opened on a thousand jobs allocated
// three thousand of them, and under TinyGo allocations are what bring the
// collector's walk over the whole view.
type jobScratch struct {
	allocated, minimum, part resource
}

// addJob adds a job's holdings, requests and claims to its queue.
func (a *queueAttr) addJob(j *caldera.Job, s *jobScratch) {
	allocated := &s.allocated
	allocated.reset()
	for _, t := range j.Tasks {
		switch {
		case allocatedStatus(t.Status):
			a.allocated.addView(&t.Request)
			a.request.addView(&t.Request)
			allocated.addView(&t.Request)
		case t.Status == caldera.Pending:
			a.request.addView(&t.Request)
		}
	}
	// A job without minResources has them all zero in the view, and then
	// claims nothing and holds nothing beyond them.
	if claimsInqueue(j) {
		a.inqueue.add(unmetMinResources(&s.part, &j.MinResources, allocated))
	}
	a.elastic.add(exceededPartInto(&s.part, allocated, s.minimum.setView(&j.MinResources)))
}

// claimsInqueue reports whether an admitted job still reserves room in its
// queue: Inqueue PodGroups, and Running ones that hold at least minMember
// tasks.
func claimsInqueue(j *caldera.Job) bool {
	switch j.Phase {
	case caldera.PodGroupInqueue:
		return true
	case caldera.PodGroupRunning:
		n := int32(0)
		for _, t := range j.Tasks {
			if allocatedStatus(t.Status) {
				n++
			}
		}
		return n >= j.MinAvailable
	}
	return false
}

// allocatedStatus: the task holds node resources on behalf of its job.
func allocatedStatus(s string) bool {
	switch s {
	case caldera.Bound, caldera.Binding, caldera.Running, caldera.Allocated:
		return true
	}
	return false
}

// isOpen: a queue accepts new work unless its status names a state other
// than Open.
func isOpen(q *caldera.Queue) bool { return q.State == "" || q.State == "Open" }
