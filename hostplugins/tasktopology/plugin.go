package tasktopology

import (
	"fmt"

	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/internal/logonce"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Name is the plugin's name in the configuration.
const Name = "task-topology"

// WeightKey is the plugin's one argument.
const WeightKey = "task-topology.weight"

// maxNodeScore is kube-scheduler's framework.MaxNodeScore, by which Volcano
// scales the plugin's node scores.
const maxNodeScore = 100

// Plugin orders a job's pods and scores nodes by the job's task-topology
// rules.
type Plugin struct {
	weight   int
	managers map[api.JobID]*jobManager
}

var (
	_ framework.Plugin       = &Plugin{}
	_ framework.TaskOrderer  = &Plugin{}
	_ framework.NodeScorer   = &Plugin{}
	_ framework.EventHandler = &Plugin{}
)

// New parses the arguments.
func New(a framework.Arguments) (framework.Plugin, error) {
	p := &Plugin{weight: 1}
	if err := a.Int(WeightKey, &p.weight); err != nil {
		return nil, err
	}
	if err := a.RejectUnknown(WeightKey); err != nil {
		return nil, err
	}
	return p, nil
}

// Name returns "task-topology".
func (p *Plugin) Name() string { return Name }

// OnSessionOpen buckets the pods of every job with pending pods and rules.
// A job whose rules name a role it lacks is placed without them; its
// PodGroup gets a Warning Event saying why.
func (p *Plugin) OnSessionOpen(ssn *framework.Session) {
	p.managers = map[api.JobID]*jobManager{}
	for _, job := range ssn.JobList {
		if !job.HasPendingTasks() {
			continue
		}
		t, err := readTopology(job)
		if err != nil {
			msg := fmt.Sprintf("%v; the job is placed without its task-topology rules", err)
			logonce.Warning(Name, "job "+job.Key()+": "+msg)
			ssn.RecordPodGroupEvent(job, v1.EventTypeWarning, "InvalidTaskTopology", msg)
			continue
		}
		if t == nil {
			continue
		}
		m := newJobManager(t)
		m.build(job)
		p.managers[job.UID] = m
	}
}

// OnSessionClose drops the session's buckets.
func (p *Plugin) OnSessionClose(*framework.Session) { p.managers = nil }

// TaskOrder puts pods in a bucket before pods in none; within one job, pods
// of buckets with more pending pods first, then of older buckets, then by
// role order within a bucket. Pods of jobs without rules are not ordered.
func (p *Plugin) TaskOrder(l, r *api.TaskInfo) int {
	lm, rm := p.managers[l.Job], p.managers[r.Job]
	if lm == nil || rm == nil {
		return 0
	}
	lb, rb := lm.bucketOfTask(l), rm.bucketOfTask(r)
	if (lb == nil) != (rb == nil) {
		if lb != nil {
			return -1
		}
		return 1
	}
	if l.Job != r.Job || lb == nil {
		return 0
	}
	if len(lb.pending) != len(rb.pending) {
		return -sign(len(lb.pending) - len(rb.pending))
	}
	if lb.index == rb.index {
		return -lm.roleOrder(l, r)
	}
	return sign(lb.index - rb.index)
}

// NodeOrder scores a bucketed pod's node by the bucket's pods it would
// share the node with; see the package documentation.
func (p *Plugin) NodeOrder(task *api.TaskInfo, node *api.NodeInfo) (float64, error) {
	m := p.managers[task.Job]
	if m == nil {
		return 0, nil
	}
	b := m.bucketOfTask(task)
	if b == nil || m.largest == 0 {
		return 0, nil
	}
	return float64(bucketScore(m, b, task, node)*p.weight) * maxNodeScore / float64(m.largest), nil
}

// bucketScore is Volcano's bucket score of node for a pod of bucket b.
func bucketScore(m *jobManager, b *bucket, task *api.TaskInfo, node *api.NodeInfo) int {
	room := node.Idle.Clone().Add(node.Releasing)
	if room.LessPartly(m.req[task.UID], api.Zero) {
		return 0
	}
	score := b.onNode[node.Name]
	if set := m.onNode[node.Name]; set != nil {
		if repelled := m.affinity(m.role[task.UID], set, true); repelled < 0 {
			score += repelled
		}
	}
	score += len(b.pending)
	if b.request.LessEqual(room, api.Zero) {
		return score
	}
	// Leave out pending pods, in bucket order, until the rest fits.
	remains := b.request.Clone()
	for _, pp := range b.pending {
		if pp.task.UID == task.UID {
			continue
		}
		remains.Sub(pp.req)
		score--
		if remains.LessEqual(room, api.Zero) {
			break
		}
	}
	return score
}

// OnAllocate counts the pod on its node.
func (p *Plugin) OnAllocate(task *api.TaskInfo) {
	if m := p.managers[task.Job]; m != nil {
		m.allocated(task)
	}
}

// OnDeallocate takes back what OnAllocate counted.
func (p *Plugin) OnDeallocate(task *api.TaskInfo) {
	if m := p.managers[task.Job]; m != nil {
		m.deallocated(task)
	}
}
