package rescheduling

import (
	"sync"
	"time"

	"github.com/caldera-scheduler/caldera/internal/logonce"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Name is the plugin's name in the configuration.
const Name = "rescheduling"

// now is the clock the interval is read with.
var now = time.Now

// lastRun is when the strategies last ran. As in Volcano it belongs to the
// process, not to a session (the plugin is made anew each session), and
// starts when the process does: the first run is one interval after start.
var lastRun = struct {
	sync.Mutex
	at time.Time
}{at: time.Now()}

// Plugin names running pods to move off busy nodes once per interval.
type Plugin struct {
	args args
	ssn  *framework.Session
	// due says this session is the one the interval allows.
	due bool
}

var _ framework.VictimTasksProvider = &Plugin{}

// New parses the arguments.
func New(a framework.Arguments) (framework.Plugin, error) {
	parsed, err := parseArgs(a)
	if err != nil {
		return nil, err
	}
	if parsed.metricsPeriod != api.UsagePeriod {
		logonce.Warning(Name, "metricsPeriod "+parsed.metricsPeriod+": the metrics source measures only "+api.UsagePeriod+
			", so every node reads as 0% used and lowNodeUtilization names no pod (Volcano v1.15 reads its metrics the same way); set metricsPeriod: "+api.UsagePeriod)
	}
	return &Plugin{args: parsed}, nil
}

// Name returns "rescheduling".
func (p *Plugin) Name() string { return Name }

// OnSessionOpen decides whether this session runs the strategies: the
// first session at least one interval after the last run does.
func (p *Plugin) OnSessionOpen(ssn *framework.Session) {
	p.ssn = ssn
	lastRun.Lock()
	defer lastRun.Unlock()
	t := now()
	if lastRun.at.Add(p.args.interval).Before(t) {
		lastRun.at = t
		p.due = true
	}
}

// OnSessionClose drops the session.
func (p *Plugin) OnSessionClose(*framework.Session) { p.ssn = nil }

// VictimTasks names the running tasks lowNodeUtilization moves, in a
// session the interval allows (Volcano registers its victim function only
// then; an empty answer lets the next tier answer, as there).
func (p *Plugin) VictimTasks(tasks []*api.TaskInfo) []*api.TaskInfo {
	if !p.due {
		return nil
	}
	return lowNodeUtilizationVictims(p.ssn.NodeList, p.args, tasks)
}
