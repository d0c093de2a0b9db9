package priority

import (
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Name is the plugin's name in the scheduler configuration.
const Name = "priority"

// Plugin orders and protects work by priority. It keeps the session only to
// look up the jobs of preemption candidates.
type Plugin struct {
	ssn *framework.Session
}

var (
	_ framework.JobOrderer         = &Plugin{}
	_ framework.TaskOrderer        = &Plugin{}
	_ framework.SubJobOrderer      = &Plugin{}
	_ framework.PreemptableFilter  = &Plugin{}
	_ framework.EvictableFilter    = &Plugin{}
	_ framework.JobStarvingChecker = &Plugin{}
)

// New makes the plugin. It has no arguments.
func New(framework.Arguments) (framework.Plugin, error) { return &Plugin{}, nil }

// Name returns "priority".
func (p *Plugin) Name() string { return Name }

// OnSessionOpen remembers the session.
func (p *Plugin) OnSessionOpen(ssn *framework.Session) { p.ssn = ssn }

// OnSessionClose does nothing.
func (p *Plugin) OnSessionClose(*framework.Session) {}

// higherFirst orders by descending priority; equal priorities are left to the
// next plugin.
func higherFirst(l, r int32) int {
	switch {
	case l > r:
		return -1
	case l < r:
		return 1
	}
	return 0
}

// JobOrder puts the higher-priority job first.
func (p *Plugin) JobOrder(l, r *api.JobInfo) int { return higherFirst(l.Priority, r.Priority) }

// SubJobOrder puts the sub-job with the higher priority (its
// highest-priority task's) first.
func (p *Plugin) SubJobOrder(l, r *api.SubJobInfo) int { return higherFirst(l.Priority, r.Priority) }

// TaskOrder puts the higher-priority task first.
func (p *Plugin) TaskOrder(l, r *api.TaskInfo) int { return higherFirst(l.Priority, r.Priority) }

// Preemptable keeps the preemptees of strictly lower priority: compared by
// job priority across jobs, by task priority within the preemptor's job.
// Preemptees whose job is not in the session are skipped; a preemptor whose
// job is not in the session may take nothing.
func (p *Plugin) Preemptable(preemptor *api.TaskInfo, preemptees []*api.TaskInfo) ([]*api.TaskInfo, bool) {
	pj := p.ssn.Jobs[preemptor.Job]
	if pj == nil {
		return nil, true
	}
	var victims []*api.TaskInfo
	for _, t := range preemptees {
		tj := p.ssn.Jobs[t.Job]
		if tj == nil {
			continue
		}
		if tj.UID == pj.UID {
			if t.Priority < preemptor.Priority {
				victims = append(victims, t)
			}
			continue
		}
		if tj.Priority < pj.Priority {
			victims = append(victims, t)
		}
	}
	return victims, true
}

// Evictable lets gangpreempt take the candidates whose job has a lower
// priority than the starving job; gangreclaim, which settles fair shares
// between queues, may take any.
func (p *Plugin) Evictable(ctx *framework.EvictionContext, candidates []*api.TaskInfo) ([]*api.TaskInfo, bool) {
	if ctx.Kind == framework.EvictionGangReclaim {
		return candidates, true
	}
	var victims []*api.TaskInfo
	for _, t := range candidates {
		if tj := p.ssn.Jobs[t.Job]; tj != nil && tj.Priority < ctx.Job.Priority {
			victims = append(victims, t)
		}
	}
	return victims, true
}

// JobStarving reports whether some task of the job neither holds nor waits
// for resources.
func (p *Plugin) JobStarving(job *api.JobInfo) bool {
	return job.ReadyTaskNum()+job.WaitingTaskNum() < int32(len(job.Tasks))
}
