package overcommit

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/resutil"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Name is the plugin's name in the scheduler configuration.
const Name = "overcommit"

const (
	// FactorArgument is the argument naming how far the cluster may be
	// committed beyond its allocatable resources.
	FactorArgument = "overcommit-factor"
	// DefaultFactor is used when the argument is absent or below 1.
	DefaultFactor = 1.2
)

// Plugin admits jobs while the overcommitted cluster has room.
type Plugin struct {
	factor float64
	// idle is the overcommitted total less what is in use.
	idle *api.Resource
	// inqueue is what admitted jobs still claim.
	inqueue *api.Resource
	ssn     *framework.Session
}

var (
	_ framework.JobEnqueueableVoter = &Plugin{}
	_ framework.JobEnqueuedObserver = &Plugin{}
)

// New reads overcommit-factor. A factor below 1 would admit less than fits
// and starve the cluster; Volcano replaces it with the default rather than
// refusing the configuration, and so does this plugin.
func New(args framework.Arguments) (framework.Plugin, error) {
	factor := DefaultFactor
	if err := args.Float64(FactorArgument, &factor); err != nil {
		return nil, err
	}
	if factor < 1.0 {
		klog.V(2).InfoS("overcommit: factor below 1, using the default", "given", factor, "default", DefaultFactor)
		factor = DefaultFactor
	}
	return &Plugin{factor: factor}, nil
}

// Name returns "overcommit".
func (p *Plugin) Name() string { return Name }

// Factor returns the overcommit factor in use.
func (p *Plugin) Factor() float64 { return p.factor }

// OnSessionOpen computes the room left and what admitted jobs claim.
func (p *Plugin) OnSessionOpen(ssn *framework.Session) {
	used := api.EmptyResource()
	for _, n := range ssn.Nodes {
		used.Add(n.Used)
	}
	p.ssn = ssn
	p.idle = ssn.TotalResource.Clone().Multi(p.factor).Sub(used)
	p.inqueue = api.EmptyResource()
	for _, job := range ssn.JobList {
		if !resutil.HasMinResources(job) {
			continue
		}
		switch job.PodGroup.Status.Phase {
		case v1beta1.PodGroupInqueue:
			p.inqueue.Add(resutil.WithoutGated(job, job.GetMinResources()))
		case v1beta1.PodGroupRunning:
			// A Running PodGroup below minMember (a finished driver, say)
			// does not reserve its minimum again.
			if resutil.AllocatedTaskNum(job) >= job.PodGroup.Spec.MinMember {
				p.inqueue.Add(resutil.WithoutGated(job, resutil.UnmetMinResources(job, job.Allocated)))
			}
		}
	}
}

// OnSessionClose drops the session's accounting.
func (p *Plugin) OnSessionClose(*framework.Session) { p.idle, p.inqueue, p.ssn = nil, nil, nil }

// JobEnqueueable permits a job whose minResources fit the room left next to
// what admitted jobs claim. A refusal is told on the PodGroup, as Volcano
// does: a Normal Unschedulable Event "resource in cluster is overused:
// overused cpu".
func (p *Plugin) JobEnqueueable(job *api.JobInfo) framework.Vote {
	if !resutil.HasMinResources(job) {
		return framework.Permit
	}
	minReq := job.GetMinResources()
	if ok, short := resutil.FitsRequested(p.inqueue.Clone().Add(minReq), p.idle, minReq); !ok {
		klog.V(4).InfoS("overcommit: cluster overused, job stays pending", "job", job.Key(), "overused", fmt.Sprint(short))
		p.ssn.RecordPodGroupEvent(job, v1.EventTypeNormal, string(v1beta1.PodGroupUnschedulableType),
			resutil.FormatResourceNames("resource in cluster is overused", "overused", short))
		return framework.Reject
	}
	return framework.Permit
}

// JobEnqueued reserves an admitted job's minResources.
func (p *Plugin) JobEnqueued(job *api.JobInfo) {
	if resutil.HasMinResources(job) {
		p.inqueue.Add(resutil.WithoutGated(job, job.GetMinResources()))
	}
}
