package proportion

import (
	"math"

	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/resutil"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
	"github.com/caldera-scheduler/caldera/scheduler/metrics"
)

// Name is the plugin's name in the scheduler configuration.
const Name = "proportion"

// queueAttr is one queue's accounting for the session.
type queueAttr struct {
	id     api.QueueID
	name   string
	weight int32
	share  float64

	deserved  *api.Resource
	allocated *api.Resource
	request   *api.Resource
	// elastic is what the queue's jobs hold beyond their minResources.
	elastic *api.Resource
	// inqueue is what admitted jobs still have a claim on.
	inqueue *api.Resource
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
		attr.addJob(job)
	}
	p.computeDeserved()
}

// OnSessionClose publishes each queue's allocated and deserved resources as
// metrics and drops the session's accounting.
func (p *Plugin) OnSessionClose(*framework.Session) {
	for _, a := range p.queues {
		metrics.QueueAllocatedMilliCPU.WithLabelValues(a.name).Set(a.allocated.MilliCPU)
		metrics.QueueAllocatedMemory.WithLabelValues(a.name).Set(a.allocated.Memory)
		metrics.QueueDeservedMilliCPU.WithLabelValues(a.name).Set(a.deserved.MilliCPU)
		metrics.QueueDeservedMemory.WithLabelValues(a.name).Set(a.deserved.Memory)
		metrics.QueueShare.WithLabelValues(a.name).Set(a.share)
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
		allocated:  api.EmptyResource(),
		request:    api.EmptyResource(),
		elastic:    api.EmptyResource(),
		inqueue:    api.EmptyResource(),
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

// addJob adds a job's holdings, requests and claims to its queue.
func (a *queueAttr) addJob(job *api.JobInfo) {
	for status, tasks := range job.TaskStatusIndex {
		switch {
		case api.AllocatedStatus(status):
			for _, t := range tasks {
				a.allocated.Add(t.Resreq)
				a.request.Add(t.Resreq)
			}
		case status == api.Pending:
			for _, t := range tasks {
				a.request.Add(t.Resreq)
			}
		}
	}
	if resutil.HasMinResources(job) && claimsInqueue(job) {
		// Only what the allocated tasks do not already cover: tasks that are
		// allocated or binding are counted in allocated while the PodGroup is
		// still Inqueue.
		a.inqueue.Add(resutil.WithoutGated(job, resutil.UnmetMinResources(job, job.Allocated)))
	}
	a.elastic.Add(job.GetElasticResources())
}

// claimsInqueue reports whether an admitted job still reserves room in its
// queue: Inqueue PodGroups, and Running ones that hold at least minMember
// tasks (a finished driver must not make a running PodGroup reserve its
// minimum again).
func claimsInqueue(job *api.JobInfo) bool {
	switch job.PodGroup.Status.Phase {
	case v1beta1.PodGroupInqueue:
		return true
	case v1beta1.PodGroupRunning:
		return resutil.AllocatedTaskNum(job) >= job.PodGroup.Spec.MinMember
	}
	return false
}

// updateShare recomputes the queue's largest allocated/deserved ratio.
func (a *queueAttr) updateShare() {
	share := 0.0
	for _, n := range a.deserved.ResourceNames() {
		if s := resutil.Share(a.allocated.Get(n), a.deserved.Get(n)); s > share {
			share = s
		}
	}
	a.share = share
}
