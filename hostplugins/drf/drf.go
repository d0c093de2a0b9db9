package drf

import (
	"cmp"

	"math"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/resutil"
	"github.com/caldera-scheduler/caldera/scheduler/api"
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
	total *api.Resource
	jobs  map[api.JobID]*jobShare
}

var (
	_ framework.JobOrderer        = &Plugin{}
	_ framework.PreemptableFilter = &Plugin{}
	_ framework.EventHandler      = &Plugin{}
)

// New makes the plugin. It has no arguments.
func New(framework.Arguments) (framework.Plugin, error) { return &Plugin{}, nil }

// Name returns "drf".
func (p *Plugin) Name() string { return Name }

// OnSessionOpen computes every job's share from what its tasks hold.
func (p *Plugin) OnSessionOpen(ssn *framework.Session) {
	p.total = ssn.TotalResource.Clone()
	p.jobs = make(map[api.JobID]*jobShare, len(ssn.Jobs))
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
	}
}

// OnSessionClose drops the session's shares.
func (p *Plugin) OnSessionClose(*framework.Session) { p.jobs = nil }

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

// OnAllocate charges the task to its job.
func (p *Plugin) OnAllocate(task *api.TaskInfo) {
	if js := p.jobs[task.Job]; js != nil {
		js.allocated.Add(task.Resreq)
		p.refresh(js)
	}
}

// OnDeallocate credits the task back to its job.
func (p *Plugin) OnDeallocate(task *api.TaskInfo) {
	if js := p.jobs[task.Job]; js != nil {
		js.allocated.Sub(task.Resreq)
		p.refresh(js)
	}
}
