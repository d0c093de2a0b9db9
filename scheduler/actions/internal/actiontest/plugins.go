package actiontest

import (
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Plugins returns the test plugins, each a small stand-in for a Volcano
// default plugin:
//   - gang: JobValid, JobReady, JobPipelined, JobStarving on minMember;
//   - priority: job and task order by priority, preemption of lower
//     priorities;
//   - predicates: node selectors (unresolvable) and the node's pod count;
//   - nodeorder: least-allocated cpu score;
//   - queues: queues named in its "overused" argument are overused and
//     their tasks reclaimable; jobs named in "rejectEnqueue" are refused
//     admission;
//   - lowpriority: victim_tasks names the tasks of priority below 50, as
//     Volcano's shuffle test's fake plugin does.
func Plugins() framework.Registry {
	r := framework.NewRegistry()
	add := func(name string, f framework.Factory) {
		if err := r.Register(name, f); err != nil {
			panic(err)
		}
	}
	add("gang", func(framework.Arguments) (framework.Plugin, error) { return gang{}, nil })
	add("priority", func(framework.Arguments) (framework.Plugin, error) { return &priorityPreempt{}, nil })
	add("predicates", func(framework.Arguments) (framework.Plugin, error) { return predicates{}, nil })
	add("nodeorder", func(framework.Arguments) (framework.Plugin, error) { return nodeorder{}, nil })
	add("queues", newQueues)
	add("lowpriority", func(framework.Arguments) (framework.Plugin, error) { return lowPriority{}, nil })
	return r
}

type lowPriority struct{ base }

func (lowPriority) Name() string { return "lowpriority" }

func (lowPriority) VictimTasks(tasks []*api.TaskInfo) []*api.TaskInfo {
	var victims []*api.TaskInfo
	for _, t := range tasks {
		if t.Priority < 50 {
			victims = append(victims, t)
		}
	}
	return victims
}

type base struct{}

func (base) OnSessionOpen(*framework.Session)  {}
func (base) OnSessionClose(*framework.Session) {}

type gang struct{ base }

func (gang) Name() string { return "gang" }

func (gang) JobValid(j *api.JobInfo) *framework.ValidateResult {
	if j.ValidTaskNum() < j.MinAvailable {
		return &framework.ValidateResult{Pass: false, Reason: "NotEnoughPods"}
	}
	return nil
}
func (gang) JobReady(j *api.JobInfo) bool { return j.IsReady() }
func (gang) JobPipelined(j *api.JobInfo) framework.Vote {
	if j.IsPipelined() {
		return framework.Permit
	}
	return framework.Reject
}
func (gang) JobStarving(j *api.JobInfo) bool { return j.IsStarving() }

type priority struct{ base }

func (priority) Name() string { return "priority" }

func cmp(l, r int32) int {
	switch {
	case l > r:
		return -1
	case l < r:
		return 1
	}
	return 0
}

func (priority) JobOrder(l, r *api.JobInfo) int   { return cmp(l.Priority, r.Priority) }
func (priority) TaskOrder(l, r *api.TaskInfo) int { return cmp(l.Priority, r.Priority) }

// priorityPreempt adds preemption by priority; it reads job priorities from
// the session.
var _ framework.PreemptableFilter = (*priorityPreempt)(nil)

type priorityPreempt struct {
	priority
	ssn *framework.Session
}

func (p *priorityPreempt) OnSessionOpen(ssn *framework.Session) { p.ssn = ssn }

func (p *priorityPreempt) Preemptable(preemptor *api.TaskInfo, preemptees []*api.TaskInfo) ([]*api.TaskInfo, bool) {
	pj := p.ssn.Jobs[preemptor.Job]
	var out []*api.TaskInfo
	for _, t := range preemptees {
		if t.Job == preemptor.Job {
			if t.Priority < preemptor.Priority {
				out = append(out, t)
			}
			continue
		}
		if j := p.ssn.Jobs[t.Job]; j != nil && j.Priority < pj.Priority {
			out = append(out, t)
		}
	}
	return out, true
}

type predicates struct{ base }

func (predicates) Name() string { return "predicates" }

func (predicates) Predicate(t *api.TaskInfo, n *api.NodeInfo) *framework.Status {
	for k, v := range t.Pod.Spec.NodeSelector {
		if n.Node.Labels[k] != v {
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, "node(s) didn't match Pod's node affinity/selector")
		}
	}
	if n.Allocatable.MaxTaskNum > 0 && len(n.Tasks) >= n.Allocatable.MaxTaskNum {
		return framework.NewStatus(framework.Unschedulable, "Too many pods")
	}
	return nil
}

type nodeorder struct{ base }

func (nodeorder) Name() string { return "nodeorder" }

func (nodeorder) NodeOrder(t *api.TaskInfo, n *api.NodeInfo) (float64, error) {
	if n.Allocatable.MilliCPU == 0 {
		return 0, nil
	}
	return 10 * n.Idle.MilliCPU / n.Allocatable.MilliCPU, nil
}

type queues struct {
	base
	ssn      *framework.Session
	overused map[string]bool
	reject   map[string]bool
}

func newQueues(args framework.Arguments) (framework.Plugin, error) {
	q := &queues{overused: map[string]bool{}, reject: map[string]bool{}}
	for key, set := range map[string]map[string]bool{"overused": q.overused, "rejectEnqueue": q.reject} {
		list, _ := args[key].([]any)
		for _, v := range list {
			s, _ := v.(string)
			set[s] = true
		}
	}
	return q, nil
}

func (*queues) Name() string                           { return "queues" }
func (q *queues) OnSessionOpen(ssn *framework.Session) { q.ssn = ssn }
func (q *queues) Overused(queue *api.QueueInfo) bool   { return q.overused[queue.Name] }
func (q *queues) Allocatable(*api.QueueInfo, *api.TaskInfo) bool {
	return true
}
func (q *queues) Preemptive(*api.QueueInfo, []*api.TaskInfo) bool { return true }
func (q *queues) JobEnqueueable(j *api.JobInfo) framework.Vote {
	if q.reject[j.Name] {
		return framework.Reject
	}
	return framework.Permit
}
func (q *queues) Reclaimable(_ *api.TaskInfo, reclaimees []*api.TaskInfo) ([]*api.TaskInfo, bool) {
	var out []*api.TaskInfo
	for _, t := range reclaimees {
		if j := q.ssn.Jobs[t.Job]; j != nil && q.overused[string(j.Queue)] {
			out = append(out, t)
		}
	}
	return out, true
}
