package sla

import (
	"fmt"
	"time"

	"github.com/caldera-scheduler/caldera/internal/logonce"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Name is the plugin's name in the scheduler configuration.
const Name = "sla"

// WaitingTimeKey is the argument and the PodGroup annotation; the
// annotation with Volcano's domain, WaitingTimeAnnotation, is read first.
const (
	WaitingTimeKey        = "sla-waiting-time"
	WaitingTimeAnnotation = "volcano.sh/sla-waiting-time"
)

// now is the clock the deadlines are compared with.
var now = time.Now

// Plugin orders and admits jobs by their SLA deadline.
type Plugin struct {
	// global is the argument's waiting time, 0 for none.
	global time.Duration
	// waits holds each job's waiting time this session, 0 for none.
	waits map[api.JobID]time.Duration
}

var (
	_ framework.JobOrderer          = &Plugin{}
	_ framework.JobEnqueueableVoter = &Plugin{}
	_ framework.JobPipelinedVoter   = &Plugin{}
)

// New reads sla-waiting-time, which must be a positive duration if given.
func New(args framework.Arguments) (framework.Plugin, error) {
	p := &Plugin{}
	if err := args.Duration(WaitingTimeKey, &p.global); err != nil {
		return nil, err
	}
	if _, given := args[WaitingTimeKey]; given && p.global <= 0 {
		return nil, fmt.Errorf("argument %q: expected a duration over 0 such as 1h, got %v", WaitingTimeKey, args[WaitingTimeKey])
	}
	return p, nil
}

// Name returns "sla".
func (p *Plugin) Name() string { return Name }

// OnSessionOpen reads each job's waiting time.
func (p *Plugin) OnSessionOpen(ssn *framework.Session) {
	p.waits = make(map[api.JobID]time.Duration, len(ssn.Jobs))
	for id, j := range ssn.Jobs {
		if w := p.waitingTime(j); w > 0 {
			p.waits[id] = w
		}
	}
}

// OnSessionClose forgets the session's jobs.
func (p *Plugin) OnSessionClose(*framework.Session) { p.waits = nil }

// waitingTime is the job's annotation, else the argument; 0 for none.
func (p *Plugin) waitingTime(j *api.JobInfo) time.Duration {
	if j.PodGroup != nil {
		for _, key := range []string{WaitingTimeAnnotation, WaitingTimeKey} {
			v, ok := j.PodGroup.Annotations[key]
			if !ok {
				continue
			}
			d, err := time.ParseDuration(v)
			if err == nil && d > 0 {
				return d
			}
			logonce.Warning(Name, fmt.Sprintf("job %s/%s: annotation %s=%q is not a positive duration; it sets no waiting time", j.Namespace, j.Name, key, v))
		}
	}
	return p.global
}

// deadline is when the job's wait ends; ok is false for a job without SLA.
func (p *Plugin) deadline(j *api.JobInfo) (time.Time, bool) {
	w, ok := p.waits[j.UID]
	return j.CreationTimestamp.Add(w), ok
}

// JobOrder puts jobs with an SLA first, the earlier deadline first.
func (p *Plugin) JobOrder(l, r *api.JobInfo) int {
	ld, lok := p.deadline(l)
	rd, rok := p.deadline(r)
	switch {
	case !lok && !rok:
		return 0
	case !lok:
		return 1
	case !rok:
		return -1
	case ld.Before(rd):
		return -1
	case ld.After(rd):
		return 1
	}
	return 0
}

// JobEnqueueable permits a job past its deadline.
func (p *Plugin) JobEnqueueable(j *api.JobInfo) framework.Vote { return p.pastDeadline(j) }

// JobPipelined permits a job past its deadline, so that allocate keeps
// what it placed of it.
func (p *Plugin) JobPipelined(j *api.JobInfo) framework.Vote { return p.pastDeadline(j) }

func (p *Plugin) pastDeadline(j *api.JobInfo) framework.Vote {
	if d, ok := p.deadline(j); ok && !now().Before(d) {
		return framework.Permit
	}
	return framework.Abstain
}
