package proportion

import (
	"math"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/resutil"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Name is the plugin's name in the scheduler configuration.
const Name = "proportion"

// queueAttr is one queue's accounting for the session.
type queueAttr struct {
	id     api.QueueID
	name   string
	weight int32
	share  float64

	deserved *api.Resource
	// QueueUsage holds what the queue's jobs hold, ask for and claim.
	resutil.QueueUsage
	// capability is the queue's spec.capability, empty when unset.
	capability *api.Resource
	// realCapability is the most the queue may ever get: its capability, or
	// the cluster less the other queues' guarantees, whichever is smaller.
	realCapability *api.Resource
	guarantee      *api.Resource
}

// Plugin holds queues to their deserved share.
type Plugin struct {
	ssn            *framework.Session
	total          *api.Resource
	totalGuarantee *api.Resource
	queues         map[api.QueueID]*queueAttr
}

var (
	_ framework.QueueOrderer        = &Plugin{}
	_ framework.OverusedChecker     = &Plugin{}
	_ framework.AllocatableChecker  = &Plugin{}
	_ framework.PreemptiveChecker   = &Plugin{}
	_ framework.ReclaimableFilter   = &Plugin{}
	_ framework.JobEnqueueableVoter = &Plugin{}
	_ framework.JobEnqueuedObserver = &Plugin{}
	_ framework.EventHandler        = &Plugin{}
)

// New makes the plugin. It has no arguments.
func New(framework.Arguments) (framework.Plugin, error) { return &Plugin{}, nil }

// Name returns "proportion".
func (p *Plugin) Name() string { return Name }

// OnSessionOpen accounts for every queue with jobs and computes what each
// deserves.
func (p *Plugin) OnSessionOpen(ssn *framework.Session) {
	p.ssn = ssn
	p.total = api.EmptyResource().Add(ssn.TotalResource)
	p.totalGuarantee = api.EmptyResource()
	p.queues = map[api.QueueID]*queueAttr{}
	for _, q := range ssn.Queues {
		if g := guaranteeOf(q); g != nil {
			p.totalGuarantee.Add(g)
		}
	}
	for _, job := range ssn.JobList {
		q := ssn.Queues[job.Queue]
		if q == nil {
			continue
		}
		attr := p.queues[q.UID]
		if attr == nil {
			attr = p.newQueueAttr(q)
			p.queues[q.UID] = attr
		}
		attr.AddJob(job)
	}
	p.computeDeserved()
}

// OnSessionClose publishes each queue's allocated and deserved resources as
// metrics and drops the session's accounting.
func (p *Plugin) OnSessionClose(*framework.Session) {
	for _, a := range p.queues {
		resutil.PublishQueue(a.name, a.Allocated, a.deserved, a.share)
	}
	p.queues = nil
}

func guaranteeOf(q *api.QueueInfo) *api.Resource {
	if q.Queue == nil || len(q.Queue.Spec.Guarantee.Resource) == 0 {
		return nil
	}
	return api.NewResource(q.Queue.Spec.Guarantee.Resource)
}

func (p *Plugin) newQueueAttr(q *api.QueueInfo) *queueAttr {
	attr := &queueAttr{
		id:         q.UID,
		name:       q.Name,
		weight:     q.Weight,
		deserved:   api.EmptyResource(),
		QueueUsage: resutil.NewQueueUsage(),
		capability: api.EmptyResource(),
		guarantee:  api.EmptyResource(),
	}
	if g := guaranteeOf(q); g != nil {
		attr.guarantee = g
	}
	attr.realCapability = api.ExceededPart(p.total, p.totalGuarantee).Add(attr.guarantee)
	if q.Queue != nil && len(q.Queue.Spec.Capability) != 0 {
		attr.capability = api.NewResource(q.Queue.Spec.Capability)
		// A capability that names only other resources leaves cpu and memory
		// unbounded.
		if attr.capability.MilliCPU <= 0 {
			attr.capability.MilliCPU = math.MaxFloat64
		}
		if attr.capability.Memory <= 0 {
			attr.capability.Memory = math.MaxFloat64
		}
		attr.realCapability.MinDimensionResource(attr.capability, api.Infinity)
	}
	return attr
}

// updateShare recomputes the queue's largest allocated/deserved ratio.
func (a *queueAttr) updateShare() {
	share := 0.0
	for _, n := range a.deserved.ResourceNames() {
		if s := resutil.Share(a.Allocated.Get(n), a.deserved.Get(n)); s > share {
			share = s
		}
	}
	a.share = share
}
