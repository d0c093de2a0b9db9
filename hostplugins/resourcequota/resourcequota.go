package resourcequota

import (
	"fmt"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/hostplugins/internal/resutil"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Name is the plugin's name in the scheduler configuration.
const Name = "resourcequota"

// Plugin admits jobs within their namespace's ResourceQuotas.
type Plugin struct {
	ssn *framework.Session
	// pending is what jobs admitted this session asked, by namespace.
	pending map[string]v1.ResourceList
}

var _ framework.JobEnqueueableVoter = &Plugin{}

// New makes the plugin. It has no arguments.
func New(framework.Arguments) (framework.Plugin, error) { return &Plugin{}, nil }

// Name returns "resourcequota".
func (*Plugin) Name() string { return Name }

// OnSessionOpen starts the session with nothing admitted.
func (p *Plugin) OnSessionOpen(ssn *framework.Session) {
	p.ssn, p.pending = ssn, map[string]v1.ResourceList{}
}

// OnSessionClose forgets the session.
func (p *Plugin) OnSessionClose(*framework.Session) { p.ssn, p.pending = nil, nil }

// JobEnqueueable permits a job whose minResources fit every quota of its
// namespace, and counts them; it rejects one that does not, with an Event.
func (p *Plugin) JobEnqueueable(job *api.JobInfo) framework.Vote {
	if !resutil.HasMinResources(job) {
		return framework.Permit
	}
	quotas := p.ssn.QuotaStatus[job.Namespace]
	if quotas == nil {
		return framework.Permit
	}
	asked := *job.PodGroup.Spec.MinResources
	names := make([]string, 0, len(quotas))
	for name := range quotas {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		q := quotas[name]
		requested := mask(asked, q.Hard)
		used := add(q.Used, p.pending[job.Namespace])
		if exceeded := over(mask(add(used, requested), requested), q.Hard); len(exceeded) > 0 {
			msg := fmt.Sprintf("resource quota insufficient, requested: %s, used: %s, limited: %s",
				format(mask(requested, exceeded)), format(mask(q.Used, exceeded)), format(mask(q.Hard, exceeded)))
			p.ssn.RecordPodGroupEvent(job, v1.EventTypeNormal, "Unschedulable", msg)
			return framework.Reject
		}
	}
	p.pending[job.Namespace] = add(p.pending[job.Namespace], asked)
	return framework.Permit
}

// mask keeps the resources of list that keys names.
func mask(list, keys v1.ResourceList) v1.ResourceList {
	out := v1.ResourceList{}
	for name, q := range list {
		if _, ok := keys[name]; ok {
			out[name] = q.DeepCopy()
		}
	}
	return out
}

// add sums two lists over the union of their resources.
func add(a, b v1.ResourceList) v1.ResourceList {
	out := v1.ResourceList{}
	for name, q := range a {
		out[name] = q.DeepCopy()
	}
	for name, q := range b {
		sum := out[name]
		sum.Add(q)
		out[name] = sum
	}
	return out
}

// over returns the resources of usage above their limit; a resource the
// limits do not name is not limited.
func over(usage, limits v1.ResourceList) v1.ResourceList {
	out := v1.ResourceList{}
	for name, q := range usage {
		if limit, ok := limits[name]; ok && q.Cmp(limit) > 0 {
			out[name] = q
		}
	}
	return out
}

// format writes a list as "cpu 2, memory 4Gi", in name order; "none"
// when it is empty.
func format(list v1.ResourceList) string {
	if len(list) == 0 {
		return "none"
	}
	parts := make([]string, 0, len(list))
	for name, q := range list {
		parts = append(parts, string(name)+" "+q.String())
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}
