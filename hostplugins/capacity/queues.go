package capacity

import (
	"fmt"
	"math"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/resutil"
	"github.com/caldera-scheduler/caldera/internal/logonce"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// queueAttr is one queue's accounting for the session.
type queueAttr struct {
	id    api.QueueID
	name  string
	share float64
	// ancestors run from the root down to the parent; children are the
	// queues whose parent this is. Both stay empty without enableHierarchy.
	ancestors []api.QueueID
	children  []*queueAttr
	// up is the queue and then its ancestors, nearest first: the queues a
	// task or job is checked against and charged to.
	up []api.QueueID

	deserved *api.Resource
	// QueueUsage holds what the queue's jobs hold, ask for and claim.
	resutil.QueueUsage
	// capability is the queue's spec.capability (empty when unset;
	// inherited from the parent in a tree).
	capability *api.Resource
	// realCapability is the most the queue may ever hold: its capability,
	// or what its parent (the cluster, when flat) has beyond its children's
	// guarantees plus its own guarantee, whichever is smaller.
	realCapability *api.Resource
	guarantee      *api.Resource
}

func (a *queueAttr) isLeaf() bool { return len(a.children) == 0 }

func guaranteeOf(q *api.QueueInfo) *api.Resource {
	if q.Queue == nil || len(q.Queue.Spec.Guarantee.Resource) == 0 {
		return api.EmptyResource()
	}
	return api.NewResource(q.Queue.Spec.Guarantee.Resource)
}

func spec(q *api.QueueInfo) v1beta1.QueueSpec {
	if q.Queue == nil {
		return v1beta1.QueueSpec{}
	}
	return q.Queue.Spec
}

func newQueueAttr(q *api.QueueInfo) *queueAttr {
	a := &queueAttr{
		id:             q.UID,
		name:           q.Name,
		up:             []api.QueueID{q.UID},
		deserved:       api.NewResource(spec(q).Deserved),
		QueueUsage:     resutil.NewQueueUsage(),
		capability:     api.EmptyResource(),
		realCapability: api.EmptyResource(),
		guarantee:      guaranteeOf(q),
	}
	if len(spec(q).Capability) != 0 {
		a.capability = api.NewResource(spec(q).Capability)
	}
	return a
}

// updateShare is the queue's largest allocated/deserved ratio. A queue that
// deserves nothing is best effort: its share is 1 however much it holds,
// so it is served after every queue below its deserved resources.
func (a *queueAttr) updateShare() {
	if a.deserved.IsEmpty() {
		a.share = 1
		return
	}
	share := 0.0
	for _, n := range a.deserved.ResourceNames() {
		share = max(share, resutil.Share(a.Allocated.Get(n), a.deserved.Get(n)))
	}
	a.share = share
}

// buildFlat accounts for every queue that has jobs, each bounded by its
// own capability and the cluster.
func (p *Plugin) buildFlat() {
	ssn := p.ssn
	for _, q := range ssn.Queues {
		p.totalGuarantee.Add(guaranteeOf(q))
	}
	for _, job := range ssn.JobList {
		q := ssn.Queues[job.Queue]
		if q == nil {
			continue
		}
		a := p.queues[q.UID]
		if a == nil {
			a = newQueueAttr(q)
			a.realCapability = api.ExceededPart(p.total, p.totalGuarantee).Add(a.guarantee)
			if len(spec(q).Capability) != 0 {
				// A capability that names only other resources leaves
				// cpu and memory unbounded.
				if a.capability.MilliCPU <= 0 {
					a.capability.MilliCPU = math.MaxFloat64
				}
				if a.capability.Memory <= 0 {
					a.capability.Memory = math.MaxFloat64
				}
				a.realCapability.MinDimensionResource(a.capability, api.Infinity)
			}
			p.queues[q.UID] = a
		}
		a.AddJob(job)
	}
	for _, a := range p.queues {
		a.deserved.MinDimensionResource(a.realCapability, api.Infinity)
		a.deserved = resutil.Max(a.deserved, a.guarantee)
		a.updateShare()
	}
}

// buildTree accounts for every queue as a node of the tree under the root
// queue: each job's holdings count in its queue and every ancestor, and
// each child is bounded by what its parent may hold. It returns why the
// tree cannot be used: a parent that does not exist, a cycle, a missing
// root queue, or a job in a queue that has children.
func (p *Plugin) buildTree() error {
	ssn := p.ssn
	for _, q := range ssn.Queues {
		p.queues[q.UID] = newQueueAttr(q)
	}
	if p.queues[rootQueue] == nil {
		return fmt.Errorf("the root queue %q does not exist", rootQueue)
	}
	// Link children in name order so that a tree reads the same way every
	// session.
	ids := make([]api.QueueID, 0, len(ssn.Queues))
	for id := range ssn.Queues {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		if id == rootQueue {
			continue
		}
		parent := api.QueueID(spec(ssn.Queues[id]).Parent)
		if parent == "" {
			parent = rootQueue
		}
		pa := p.queues[parent]
		if pa == nil {
			return fmt.Errorf("queue %s names parent queue %s, which does not exist", id, parent)
		}
		pa.children = append(pa.children, p.queues[id])
	}
	for _, id := range ids {
		path, err := p.pathTo(id)
		if err != nil {
			return err
		}
		a := p.queues[id]
		a.ancestors = path
		for i := len(path) - 1; i >= 0; i-- {
			a.up = append(a.up, path[i])
		}
	}
	for _, job := range ssn.JobList {
		a := p.queues[job.Queue]
		if a == nil {
			continue
		}
		if !a.isLeaf() {
			return fmt.Errorf("job %s/%s is in queue %s, which has child queues: jobs go to queues without children", job.Namespace, job.Name, a.name)
		}
		a.AddJob(job)
		for _, anc := range a.ancestors {
			p.queues[anc].AddJob(job)
		}
	}
	root := p.queues[rootQueue]
	// The root may hold whatever users submit, even beyond the cluster's
	// size: a limit is set by creating queues, not by the root.
	if root.capability.IsEmpty() {
		root.capability = api.EmptyResource()
		root.capability.MilliCPU, root.capability.Memory = math.MaxFloat64, math.MaxFloat64
		for n := range p.total.Scalars {
			root.capability.SetScalar(n, math.MaxInt64)
		}
	}
	root.realCapability = root.capability
	p.checkChildren(root)
	for _, a := range p.queues {
		a.updateShare()
	}
	return nil
}

// pathTo returns the queue's ancestors from the root down, or an error on
// a cycle of parents.
func (p *Plugin) pathTo(id api.QueueID) ([]api.QueueID, error) {
	var up []api.QueueID
	seen := map[api.QueueID]bool{id: true}
	for cur := id; cur != rootQueue; {
		parent := api.QueueID(spec(p.ssn.Queues[cur]).Parent)
		if parent == "" {
			parent = rootQueue
		}
		up = append(up, parent)
		if seen[parent] {
			names := []string{string(id)}
			for _, q := range up {
				names = append(names, string(q))
			}
			return nil, fmt.Errorf("queue parents form a cycle: %s", strings.Join(names, " -> "))
		}
		seen[parent] = true
		cur = parent
	}
	slices.Reverse(up)
	return up, nil
}

// checkChildren sets each child's deserved (at least its guarantee),
// inherited capability and real capability, from the root down, and logs
// what does not add up: a child's capability above its parent's, children
// deserving or guaranteed more than their parent. Those are logged, not
// refused, as in Volcano: the parent's bounds still hold the children.
func (p *Plugin) checkChildren(a *queueAttr) {
	totalGuarantee, totalDeserved := api.EmptyResource(), api.EmptyResource()
	for _, c := range a.children {
		c.deserved = resutil.Max(c.deserved, c.guarantee)
		totalDeserved.Add(c.deserved)
		totalGuarantee.Add(c.guarantee)
		if c.capability.MilliCPU <= 0 {
			c.capability.MilliCPU = a.capability.MilliCPU
		}
		if c.capability.Memory <= 0 {
			c.capability.Memory = a.capability.Memory
		}
		for n, q := range a.capability.Scalars {
			if _, set := c.capability.Scalars[n]; !set {
				c.capability.SetScalar(n, q)
			}
		}
		if dims := resutil.ExceedsBounded(c.capability, a.capability); len(dims) > 0 {
			logonce.Warning(Name, fmt.Sprintf("queue %s: capability %v is above its parent %s's %v in %s; the parent's bounds it", c.name, c.capability, a.name, a.capability, strings.Join(dims, ", ")))
		}
	}
	if a.id == rootQueue {
		a.guarantee = totalGuarantee
		a.deserved = totalDeserved
	}
	for _, c := range a.children {
		c.realCapability = api.ExceededPart(a.realCapability, totalGuarantee).Add(c.guarantee)
		c.realCapability.MinDimensionResource(c.capability, api.Infinity)
	}
	if a.deserved.LessPartly(totalDeserved, api.Zero) {
		logonce.Warning(Name, fmt.Sprintf("queue %s: its child queues deserve %v together, more than its own %v", a.name, totalDeserved, a.deserved))
	}
	if a.guarantee.LessPartly(totalGuarantee, api.Zero) {
		logonce.Warning(Name, fmt.Sprintf("queue %s: its child queues are guaranteed %v together, more than its own %v; not every guarantee can be met at once", a.name, totalGuarantee, a.guarantee))
	}
	for _, c := range a.children {
		p.checkChildren(c)
	}
}

// refuseSession stops the plugin for the session: it logs why and tells
// every job that waits for resources.
func (p *Plugin) refuseSession(err error) {
	p.broken = err.Error()
	logonce.Warning(Name, "the queue hierarchy cannot be used, so no job is admitted, placed or reclaimed for: "+p.broken)
	for _, job := range p.ssn.JobList {
		if len(job.TaskStatusIndex[api.Pending]) == 0 {
			continue
		}
		p.ssn.RecordPodGroupEvent(job, v1.EventTypeWarning, string(v1beta1.PodGroupUnschedulableType),
			"queue hierarchy (capacity plugin, enableHierarchy): "+p.broken)
	}
}

// warnDeviceClassQuotas logs, once per queue and entry, quota entries for
// dynamically allocated devices (Volcano's deviceclass/NAME and
// DIM.deviceclass/NAME): Caldera does not count them, so they bound
// nothing, where Volcano would hold the queue to them.
func warnDeviceClassQuotas(ssn *framework.Session) {
	for _, q := range ssn.Queues {
		s := spec(q)
		for _, rl := range []v1.ResourceList{s.Capability, s.Deserved, s.Guarantee.Resource} {
			for n := range rl {
				if strings.HasPrefix(string(n), "deviceclass/") || strings.Contains(string(n), ".deviceclass/") {
					logonce.Warning(Name, fmt.Sprintf("queue %s: %s is a quota of dynamically allocated devices, which is not implemented (README, \"Volcano's plugins and actions\"); it bounds nothing", q.Name, n))
				}
			}
		}
	}
}
