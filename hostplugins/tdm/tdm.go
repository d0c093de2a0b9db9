package tdm

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Name is the plugin's name in the scheduler configuration.
const Name = "tdm"

// The labels, annotations and arguments the plugin reads, Volcano's.
const (
	ZoneLabel             = "volcano.sh/revocable-zone"
	MinAvailableKey       = "volcano.sh/jdb-min-available"
	MaxUnavailableKey     = "volcano.sh/jdb-max-unavailable"
	zoneArgPrefix         = "tdm.revocable-zone."
	evictPeriodArg        = "tdm.evict.period"
	windowLayout          = "15:04"
	defaultEvictPerJob    = 1
	defaultEvictPeriod    = time.Minute
	revocableNodeRejected = "not allow to dispatch to revocable node"
	// maxNodeScore is kube-scheduler's MaxNodeScore, Volcano's score here.
	maxNodeScore = 100
)

// now is the clock windows are read with.
var now = time.Now

// lastEvict is when VictimTasks last named victims; like Volcano's, it is
// the process's, not a session's: the plugin is made anew each session.
var lastEvict struct {
	sync.Mutex
	at time.Time
}

// window is a zone's daily window, hours and minutes of its start and end.
type window struct {
	raw        string
	start, end time.Time
}

// Plugin lends revocable zones to preemptable work in their windows.
type Plugin struct {
	zones       map[string]window
	evictPeriod time.Duration
	ssn         *framework.Session
	// closed says, for each zone with a window, why it takes no work this
	// session (nil when open): the clock is read once a session, not per
	// task and node.
	closed map[string]error
}

var (
	_ framework.Predicater          = &Plugin{}
	_ framework.NodeScorer          = &Plugin{}
	_ framework.PreemptableFilter   = &Plugin{}
	_ framework.VictimTasksProvider = &Plugin{}
	_ framework.JobOrderer          = &Plugin{}
	_ framework.JobPipelinedVoter   = &Plugin{}
	_ framework.JobStarvingChecker  = &Plugin{}
)

// New reads the zones' windows and tdm.evict.period.
func New(args framework.Arguments) (framework.Plugin, error) {
	p := &Plugin{zones: map[string]window{}, evictPeriod: defaultEvictPeriod}
	for key, v := range args {
		zone, ok := strings.CutPrefix(key, zoneArgPrefix)
		if !ok {
			continue
		}
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("argument %q: expected a string such as 10:00-21:00, got %T %v", key, v, v)
		}
		w, err := parseWindow(s)
		if err != nil {
			return nil, fmt.Errorf("argument %q: %v", key, err)
		}
		p.zones[zone] = w
	}
	if err := args.Duration(evictPeriodArg, &p.evictPeriod); err != nil {
		return nil, err
	}
	return p, nil
}

// parseWindow reads "HH:MM-HH:MM".
func parseWindow(s string) (window, error) {
	from, to, ok := strings.Cut(strings.TrimSpace(s), "-")
	if !ok || strings.Contains(to, "-") {
		return window{}, fmt.Errorf("expected a window such as 10:00-21:00, got %q", s)
	}
	start, err := time.Parse(windowLayout, from)
	if err != nil {
		return window{}, fmt.Errorf("expected a window such as 10:00-21:00, got %q: %v", s, err)
	}
	end, err := time.Parse(windowLayout, to)
	if err != nil {
		return window{}, fmt.Errorf("expected a window such as 10:00-21:00, got %q: %v", s, err)
	}
	return window{raw: s, start: start, end: end}, nil
}

// bounds is the window of t's day: from the start to the end, which is
// the next day when it is not after the start, as Volcano reckons it.
func (w window) bounds(t time.Time) (start, end time.Time) {
	start = time.Date(t.Year(), t.Month(), t.Day(), w.start.Hour(), w.start.Minute(), 0, 0, t.Location())
	day := t.Day()
	if !w.end.After(w.start) {
		day++
	}
	end = time.Date(t.Year(), t.Month(), day, w.end.Hour(), w.end.Minute(), 0, 0, t.Location())
	return start, end
}

// open reports whether t lies within the window of its day.
func (w window) open(t time.Time) bool {
	start, end := w.bounds(t)
	return t.Unix() >= start.Unix() && t.Unix() <= end.Unix()
}

// Name returns "tdm".
func (p *Plugin) Name() string { return Name }

// OnSessionOpen remembers the session and reads which windows are open.
func (p *Plugin) OnSessionOpen(ssn *framework.Session) {
	p.ssn = ssn
	p.closed = make(map[string]error, len(p.zones))
	t := now()
	for zone, w := range p.zones {
		p.closed[zone] = nil
		if !w.open(t) {
			p.closed[zone] = fmt.Errorf("current time beyond revocable zone %v:%v", zone, w.raw)
		}
	}
}

// OnSessionClose forgets it.
func (p *Plugin) OnSessionClose(*framework.Session) { p.ssn, p.closed = nil, nil }

// zoneOf is a node's revocable zone, "" for none.
func zoneOf(node *api.NodeInfo) string {
	if node.Node == nil {
		return ""
	}
	return node.Node.Labels[ZoneLabel]
}

// mayRevoke reports whether a pod may use revocable nodes.
func mayRevoke(pod *v1.Pod) bool {
	if pod == nil {
		return false
	}
	if v, ok := pod.Annotations[ZoneLabel]; ok {
		return v == "*"
	}
	b, err := strconv.ParseBool(pod.Annotations[api.PreemptableKey])
	return err == nil && b
}

// zoneClosed explains why a zone takes no work this session; nil when it
// does.
func (p *Plugin) zoneClosed(zone string) error {
	if err, ok := p.closed[zone]; ok {
		return err
	}
	return fmt.Errorf("revocable zone %v not support", zone)
}

// Predicate keeps revocable nodes for pods that may use them, in their
// zone's window.
func (p *Plugin) Predicate(task *api.TaskInfo, node *api.NodeInfo) *framework.Status {
	zone := zoneOf(node)
	if zone == "" {
		return nil
	}
	if err := p.zoneClosed(zone); err != nil {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, err.Error())
	}
	if !mayRevoke(task.Pod) {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, revocableNodeRejected)
	}
	return nil
}

// NodeOrder gives a pod that may use revocable nodes the most for a node
// of an open zone.
func (p *Plugin) NodeOrder(task *api.TaskInfo, node *api.NodeInfo) (float64, error) {
	zone := zoneOf(node)
	if zone == "" {
		return 0, nil
	}
	if err := p.zoneClosed(zone); err != nil {
		return 0, err
	}
	if !mayRevoke(task.Pod) {
		return 0, nil
	}
	return maxNodeScore, nil
}

// Preemptable lets a preemptor that is neither preemptable nor revocable
// take preemptable Running pods off nodes in no zone, within each job's
// budget.
func (p *Plugin) Preemptable(preemptor *api.TaskInfo, candidates []*api.TaskInfo) ([]*api.TaskInfo, bool) {
	if preemptor.Preemptable || mayRevoke(preemptor.Pod) {
		return nil, true
	}
	return p.withinBudgets(candidates, func(t *api.TaskInfo) bool {
		node := p.ssn.Nodes[t.NodeName]
		return node != nil && zoneOf(node) == ""
	}), true
}

// VictimTasks names, at most once per evict period, the preemptable
// Running pods on nodes of closed zones, within each job's budget.
func (p *Plugin) VictimTasks([]*api.TaskInfo) []*api.TaskInfo {
	lastEvict.Lock()
	defer lastEvict.Unlock()
	t := now()
	if lastEvict.at.Add(p.evictPeriod).After(t) {
		return nil
	}
	var victims []*api.TaskInfo
	for _, zone := range slices.Sorted(maps.Keys(p.zones)) {
		if p.zoneClosed(zone) == nil {
			continue
		}
		var onZone []*api.TaskInfo
		for _, node := range p.ssn.NodeList {
			if zoneOf(node) != zone {
				continue
			}
			for _, task := range node.Tasks {
				onZone = append(onZone, task)
			}
		}
		slices.SortFunc(onZone, func(a, b *api.TaskInfo) int { return strings.Compare(a.Key(), b.Key()) })
		victims = append(victims, p.withinBudgets(onZone, func(*api.TaskInfo) bool { return true })...)
	}
	lastEvict.at = t
	return victims
}

// withinBudgets keeps the preemptable Running tasks that where accepts,
// at most each job's budget of them, jobs in the order they first appear.
func (p *Plugin) withinBudgets(tasks []*api.TaskInfo, where func(*api.TaskInfo) bool) []*api.TaskInfo {
	byJob := map[api.JobID][]*api.TaskInfo{}
	var order []api.JobID
	for _, t := range tasks {
		if !t.Preemptable || t.Status != api.Running || !where(t) {
			continue
		}
		if _, seen := byJob[t.Job]; !seen {
			order = append(order, t.Job)
		}
		byJob[t.Job] = append(byJob[t.Job], t)
	}
	var victims []*api.TaskInfo
	for _, id := range order {
		job := p.ssn.Jobs[id]
		if job == nil {
			continue
		}
		candidates := byJob[id]
		victims = append(victims, candidates[:min(evictable(job), len(candidates))]...)
	}
	return victims
}

// evictable is how many of the job's tasks its budget lets go.
func evictable(job *api.JobInfo) int {
	running := len(job.TaskStatusIndex[api.Running])
	total := len(job.Tasks)
	var annotations map[string]string
	if job.PodGroup != nil {
		annotations = job.PodGroup.Annotations
	}
	if v, ok := annotations[MinAvailableKey]; ok {
		if min := scaled(v, total); running >= min {
			return running - min
		}
		return defaultEvictPerJob
	}
	if v, ok := annotations[MaxUnavailableKey]; ok {
		finished := len(job.TaskStatusIndex[api.Succeeded]) + len(job.TaskStatusIndex[api.Failed])
		unavailable := total - finished - running
		if max := scaled(v, total); unavailable < max {
			return max - unavailable
		}
		return 0
	}
	return defaultEvictPerJob
}

// scaled reads an integer or a percentage of total (rounded up); a value
// that is neither is 0, as Volcano reads it.
func scaled(v string, total int) int {
	is := intstr.Parse(v)
	n, err := intstr.GetScaledValueFromIntOrPercent(&is, total, true)
	if err != nil {
		return 0
	}
	return n
}

// JobOrder puts jobs that are not preemptable first.
func (p *Plugin) JobOrder(l, r *api.JobInfo) int {
	switch {
	case l.Preemptable == r.Preemptable:
		return 0
	case !l.Preemptable:
		return -1
	}
	return 1
}

// JobPipelined permits a job whose pipelined and ready tasks reach its
// minimum, and rejects any other.
func (p *Plugin) JobPipelined(job *api.JobInfo) framework.Vote {
	if job.IsPipelined() {
		return framework.Permit
	}
	return framework.Reject
}

// JobStarving: a job that is not preemptable and has pending tasks.
func (p *Plugin) JobStarving(job *api.JobInfo) bool {
	return !job.Preemptable && len(job.TaskStatusIndex[api.Pending]) > 0
}
