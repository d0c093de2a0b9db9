package usage

import (
	"time"

	"k8s.io/klog/v2"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Name is the plugin's name in the configuration.
const Name = "usage"

// The reasons a node over a threshold fails with, Volcano's words.
const (
	ReasonCPU    = "the CPU load of the node exceeds the upper limit."
	ReasonMemory = "the memory load of the node exceeds the upper limit."
)

// MetricsActiveTime is how long a measure counts: an older one is ignored.
const MetricsActiveTime = 5 * time.Minute

// maxNodeScore is kube-scheduler's framework.MaxNodeScore.
const maxNodeScore = 100

// now is the clock the measures' age is taken by.
var now = time.Now

// Plugin keeps tasks off nodes whose measured load is over a threshold and
// prefers the least loaded nodes.
type Plugin struct {
	args args
	// period is the averaging period read from each node's usage.
	period string
	// sessionStart is when the session opened: a measure is fresh when it
	// is at most MetricsActiveTime older.
	sessionStart time.Time
}

var (
	_ framework.Plugin     = &Plugin{}
	_ framework.Predicater = &Plugin{}
	_ framework.NodeScorer = &Plugin{}
)

// New parses the arguments.
func New(a framework.Arguments) (framework.Plugin, error) {
	parsed, err := parseArgs(a)
	if err != nil {
		return nil, err
	}
	return &Plugin{args: parsed, period: api.UsagePeriod}, nil
}

// Name returns "usage".
func (p *Plugin) Name() string { return Name }

// OnSessionOpen notes the time measures are judged by.
func (p *Plugin) OnSessionOpen(ssn *framework.Session) {
	p.sessionStart = now()
	if klogV := klog.V(4); klogV.Enabled() {
		for _, n := range ssn.NodeList {
			if u := n.Usage; u != nil {
				klogV.InfoS("Node usage", "node", n.Name, "cpu", u.CPUUsageAvg[p.period], "memory", u.MemoryUsageAvg[p.period], "measured", u.MetricsTime)
			}
		}
	}
}

// OnSessionClose does nothing.
func (p *Plugin) OnSessionClose(*framework.Session) {}

// fresh returns the node's usage when it was measured at most
// MetricsActiveTime before the session opened.
func (p *Plugin) fresh(node *api.NodeInfo) (*api.NodeUsage, bool) {
	u := node.Usage
	if u == nil || p.period == "" || p.sessionStart.Sub(u.MetricsTime) > MetricsActiveTime {
		return nil, false
	}
	return u, true
}

// Predicate fails a node whose fresh CPU, then memory, usage is over its
// threshold; evicting tasks does not lower a measured load, so the failure
// is UnschedulableAndUnresolvable. Without a fresh measure the node passes.
func (p *Plugin) Predicate(task *api.TaskInfo, node *api.NodeInfo) *framework.Status {
	u, ok := p.fresh(node)
	if !ok {
		return nil
	}
	if cpu := u.CPUUsageAvg[p.period]; cpu > float64(p.args.cpuThreshold) {
		klog.V(4).InfoS("Node CPU usage over the threshold", "node", node.Name, "usage", cpu, "threshold", p.args.cpuThreshold)
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, ReasonCPU)
	}
	if mem := u.MemoryUsageAvg[p.period]; mem > float64(p.args.memoryThreshold) {
		klog.V(4).InfoS("Node memory usage over the threshold", "node", node.Name, "usage", mem, "threshold", p.args.memoryThreshold)
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, ReasonMemory)
	}
	return nil
}

// NodeOrder scores the free shares of CPU and memory, weighted, scaled to
// [0, 100 x usage.weight]. A node without a fresh measure of both scores 0.
func (p *Plugin) NodeOrder(task *api.TaskInfo, node *api.NodeInfo) (float64, error) {
	u, ok := p.fresh(node)
	if !ok {
		return 0, nil
	}
	cpu, ok := u.CPUUsageAvg[p.period]
	if !ok {
		return 0, nil
	}
	mem, ok := u.MemoryUsageAvg[p.period]
	if !ok {
		return 0, nil
	}
	cw, mw := float64(p.args.cpuWeight), float64(p.args.memoryWeight)
	score := ((100-cpu)/100*cw + (100-mem)/100*mw) / (cw + mw)
	return score * maxNodeScore * float64(p.args.weight), nil
}
