package drf

import (
	"cmp"

	"math"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/resutil"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/conf"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Name is the plugin's name in the scheduler configuration.
const Name = "drf"

// shareTolerance is how close two shares must be to count as equal when
// choosing victims, so that float noise does not protect a job.
const shareTolerance = 0.000001

// jobShare is one job's dominant share and what it is computed from.
type jobShare struct {
	allocated *api.Resource
	share     float64
}

// Plugin orders jobs and chooses victims by dominant share.
type Plugin struct {
	ssn   *framework.Session
	total *api.Resource
	jobs  map[api.JobID]*jobShare

	// With enableHierarchy: the tree of queue paths and jobs, and what
	// every job holds.
	hierarchy      bool
	root           *hnode
	paths          map[api.QueueID]queuePath
	totalAllocated *api.Resource
}

var (
	_ framework.JobOrderer        = &Plugin{}
	_ framework.QueueOrderer      = &Plugin{}
	_ framework.PreemptableFilter = &Plugin{}
	_ framework.ReclaimableFilter = &Plugin{}
	_ framework.EventHandler      = &Plugin{}
	_ framework.HierarchyTaker    = &Plugin{}
)

// New makes the plugin. It has no arguments.
func New(framework.Arguments) (framework.Plugin, error) { return &Plugin{}, nil }

// Name returns "drf".
func (p *Plugin) Name() string { return Name }

// TakesHierarchy says that enableHierarchy turns on hierarchical DRF.
func (p *Plugin) TakesHierarchy() {}

// OnSessionOpen computes every job's share from what its tasks hold and,
// with enableHierarchy, the tree's.
func (p *Plugin) OnSessionOpen(ssn *framework.Session) {
	p.ssn = ssn
	p.total = ssn.TotalResource.Clone()
	p.jobs = make(map[api.JobID]*jobShare, len(ssn.Jobs))
	opt := ssn.PluginOption(Name)
	p.hierarchy = opt != nil && conf.IsEnabled(opt.EnabledHierarchy)
	if p.hierarchy {
		p.root = newLevel("root", 1)
		p.paths = make(map[api.QueueID]queuePath, len(ssn.Queues))
		p.totalAllocated = api.EmptyResource()
	}
	for _, job := range ssn.JobList {
		js := &jobShare{allocated: api.EmptyResource()}
		for status, tasks := range job.TaskStatusIndex {
			if !api.AllocatedStatus(status) {
				continue
			}
			for _, t := range tasks {
				js.allocated.Add(t.Resreq)
			}
		}
		p.refresh(js)
		p.jobs[job.UID] = js
		if p.hierarchy {
			p.totalAllocated.Add(js.allocated)
			p.update(p.root, p.totalAllocated, job, js)
		}
	}
}

// OnSessionClose drops the session's shares.
func (p *Plugin) OnSessionClose(*framework.Session) {
	p.jobs, p.root, p.paths, p.ssn = nil, nil, nil, nil
}

func (p *Plugin) shareOf(used *api.Resource) float64 {
	_, s := resutil.DominantShare(used, p.total)
	return s
}

func (p *Plugin) refresh(js *jobShare) { js.share = p.shareOf(js.allocated) }

// share returns a job's current share; a job the session did not start with
// has none.
func (p *Plugin) share(id api.JobID) float64 {
	if js := p.jobs[id]; js != nil {
		return js.share
	}
	return 0
}

// JobOrder puts the job with the smaller share first.
func (p *Plugin) JobOrder(l, r *api.JobInfo) int {
	return cmp.Compare(p.share(l.UID), p.share(r.UID))
}

// Preemptable allows the candidates whose job would not end up with a
// smaller share than the preemptor's job once the preemptor runs.
func (p *Plugin) Preemptable(preemptor *api.TaskInfo, preemptees []*api.TaskInfo) ([]*api.TaskInfo, bool) {
	pj := p.jobs[preemptor.Job]
	if pj == nil {
		return nil, true
	}
	preemptorShare := p.shareOf(pj.allocated.Clone().Add(preemptor.Resreq))

	remaining := map[api.JobID]*api.Resource{}
	var victims []*api.TaskInfo
	for _, t := range preemptees {
		alloc, seen := remaining[t.Job]
		if !seen {
			js := p.jobs[t.Job]
			if js == nil {
				continue
			}
			alloc = js.allocated.Clone()
			remaining[t.Job] = alloc
		}
		// Each candidate considered comes off its job's allocation, allowed
		// or not, as in Volcano.
		victimShare := p.shareOf(alloc.Sub(t.Resreq))
		if preemptorShare < victimShare || math.Abs(preemptorShare-victimShare) <= shareTolerance {
			victims = append(victims, t)
		}
	}
	return victims, true
}

// OnAllocate charges the task to its job (and the tree).
func (p *Plugin) OnAllocate(task *api.TaskInfo) {
	p.charge(task, func(r *api.Resource) { r.Add(task.Resreq) })
}

// OnDeallocate credits the task back to its job (and the tree).
func (p *Plugin) OnDeallocate(task *api.TaskInfo) {
	p.charge(task, func(r *api.Resource) { r.Sub(task.Resreq) })
}

func (p *Plugin) charge(task *api.TaskInfo, apply func(*api.Resource)) {
	js := p.jobs[task.Job]
	if js == nil {
		return
	}
	apply(js.allocated)
	p.refresh(js)
	if !p.hierarchy {
		return
	}
	if job := p.ssn.Jobs[task.Job]; job != nil && p.ssn.Queues[job.Queue] != nil {
		apply(p.totalAllocated)
		p.update(p.root, p.totalAllocated, job, js)
	}
}

// QueueOrder, with enableHierarchy, compares queues down their paths in
// the tree; without it the plugin has no say.
func (p *Plugin) QueueOrder(l, r *api.QueueInfo) int {
	if !p.hierarchy {
		return 0
	}
	switch d := p.compareQueues(p.root, l, r); {
	case d < 0:
		return -1
	case d > 0:
		return 1
	}
	return 0
}

// Reclaimable, with enableHierarchy, takes each candidate whose queue,
// with the reclaimer holding its task and the candidate gone (each
// candidate weighed alone), would still come after the reclaimer's queue
// in the tree's order. Without enableHierarchy the plugin abstains.
func (p *Plugin) Reclaimable(reclaimer *api.TaskInfo, reclaimees []*api.TaskInfo) ([]*api.TaskInfo, bool) {
	if !p.hierarchy {
		return nil, false
	}
	ljob := p.ssn.Jobs[reclaimer.Job]
	if ljob == nil || p.ssn.Queues[ljob.Queue] == nil || p.jobs[ljob.UID] == nil {
		return nil, true
	}
	lqueue := p.ssn.Queues[ljob.Queue]
	root := p.root.clone()
	total := p.totalAllocated.Clone().Add(reclaimer.Resreq)
	mine := &jobShare{allocated: p.jobs[ljob.UID].allocated.Clone().Add(reclaimer.Resreq)}
	p.refresh(mine)
	p.update(root, total, ljob, mine)

	var victims []*api.TaskInfo
	for _, t := range reclaimees {
		rjob := p.ssn.Jobs[t.Job]
		if rjob == nil || p.ssn.Queues[rjob.Queue] == nil || p.jobs[rjob.UID] == nil {
			continue
		}
		rqueue := p.ssn.Queues[rjob.Queue]
		total.Sub(t.Resreq)
		theirs := &jobShare{allocated: p.jobs[rjob.UID].allocated.Clone().Sub(t.Resreq)}
		p.refresh(theirs)
		p.update(root, total, rjob, theirs)
		d := p.compareQueues(root, lqueue, rqueue)
		total.Add(t.Resreq)
		theirs.allocated.Add(t.Resreq)
		p.refresh(theirs)
		p.update(root, total, rjob, theirs)
		if d < 0 {
			victims = append(victims, t)
		}
	}
	return victims, true
}
