package nodegroup

import (
	"fmt"

	"github.com/caldera-scheduler/caldera/internal/logonce"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Name is the plugin's name in the scheduler configuration.
const Name = "nodegroup"

const (
	// GroupLabel names a node's group.
	GroupLabel = "volcano.sh/nodegroup-name"
	// rootQueue is the parent of a queue that names none.
	rootQueue = "root"
	// baseScore is a required group's score; a preferred one adds half.
	baseScore = 100
)

// Volcano's reasons for a node that does not fit.
const (
	reasonNoAffinity  = "node group affinity not specified"
	reasonNoLabel     = "node group label not found"
	reasonUnsatisfied = "node does not satisfy the node group affinity"
)

// Plugin places a queue's jobs by its node-group affinity.
type Plugin struct {
	strict, preferredOrder bool
	ssn                    *framework.Session
	affinity               map[api.QueueID]*affinity
}

var (
	_ framework.Predicater = &Plugin{}
	_ framework.NodeScorer = &Plugin{}
)

// New reads strict and enablePreferredOrder.
func New(args framework.Arguments) (framework.Plugin, error) {
	p := &Plugin{strict: true}
	if err := args.Bool("strict", &p.strict); err != nil {
		return nil, err
	}
	if err := args.Bool("enablePreferredOrder", &p.preferredOrder); err != nil {
		return nil, err
	}
	return p, nil
}

// Name returns "nodegroup".
func (p *Plugin) Name() string { return Name }

// TakesHierarchy says that enableHierarchy passes affinity down the queue
// tree.
func (p *Plugin) TakesHierarchy() {}

// affinity is a queue's spec.affinity as sets of group names; preferred
// maps a preferred group to its index in the list (the last, for a group
// listed twice, as Volcano's map keeps it), for enablePreferredOrder.
type affinity struct {
	required, antiRequired, antiPreferred map[string]bool
	preferred                             map[string]int
}

func (a *affinity) empty() bool {
	return a == nil || len(a.required)+len(a.preferred)+len(a.antiRequired)+len(a.antiPreferred) == 0
}

func affinityOf(q *api.QueueInfo) *affinity {
	if q.Queue == nil || q.Queue.Spec.Affinity == nil {
		return nil
	}
	set := func(names []string) map[string]bool {
		m := make(map[string]bool, len(names))
		for _, n := range names {
			m[n] = true
		}
		return m
	}
	a := &affinity{}
	if g := q.Queue.Spec.Affinity.NodeGroupAffinity; g != nil {
		a.required = set(g.RequiredDuringSchedulingIgnoredDuringExecution)
		a.preferred = make(map[string]int, len(g.PreferredDuringSchedulingIgnoredDuringExecution))
		for i, n := range g.PreferredDuringSchedulingIgnoredDuringExecution {
			a.preferred[n] = i
		}
	}
	if g := q.Queue.Spec.Affinity.NodeGroupAntiAffinity; g != nil {
		a.antiRequired = set(g.RequiredDuringSchedulingIgnoredDuringExecution)
		a.antiPreferred = set(g.PreferredDuringSchedulingIgnoredDuringExecution)
	}
	return a
}

// OnSessionOpen reads each queue's affinity, inherited under
// enableHierarchy.
func (p *Plugin) OnSessionOpen(ssn *framework.Session) {
	p.ssn = ssn
	p.affinity = make(map[api.QueueID]*affinity, len(ssn.Queues))
	for id, q := range ssn.Queues {
		p.affinity[id] = affinityOf(q)
	}
	if opt := ssn.PluginOption(Name); opt == nil || opt.EnabledHierarchy == nil || !*opt.EnabledHierarchy {
		return
	}
	// An ancestor already given its own ancestor's affinity answers as
	// walking on from it would, so the order queues are visited in does
	// not matter.
	for id, a := range p.affinity {
		if a == nil {
			p.affinity[id] = p.inherited(id)
		}
	}
}

// inherited is the affinity of the nearest ancestor of queue id that has
// one: its spec.parent, else root, up to root.
func (p *Plugin) inherited(id api.QueueID) *affinity {
	seen := map[api.QueueID]bool{id: true}
	for id != rootQueue {
		q := p.ssn.Queues[id]
		parent := api.QueueID(rootQueue)
		if q.Queue != nil && q.Queue.Spec.Parent != "" {
			parent = api.QueueID(q.Queue.Spec.Parent)
		}
		if _, ok := p.ssn.Queues[parent]; !ok {
			logonce.Warning(Name, fmt.Sprintf("queue %s: parent queue %s not found; it inherits no node group affinity", q.Name, parent))
			return nil
		}
		if seen[parent] {
			logonce.Warning(Name, fmt.Sprintf("queue %s: its parents form a cycle at %s; it inherits no node group affinity", q.Name, parent))
			return nil
		}
		if a := p.affinity[parent]; a != nil {
			return a
		}
		seen[parent] = true
		id = parent
	}
	return nil
}

// OnSessionClose forgets the session.
func (p *Plugin) OnSessionClose(*framework.Session) { p.ssn, p.affinity = nil, nil }

// queueAffinity is the affinity of the task's job's queue; ok is false
// when the job is not in the session.
func (p *Plugin) queueAffinity(task *api.TaskInfo) (*affinity, bool) {
	job := p.ssn.Jobs[task.Job]
	if job == nil {
		return nil, false
	}
	return p.affinity[job.Queue], true
}

// Predicate admits a node by its group and the queue's affinity.
func (p *Plugin) Predicate(task *api.TaskInfo, node *api.NodeInfo) *framework.Status {
	a, ok := p.queueAffinity(task)
	if !ok {
		return framework.NewStatus(framework.Error, fmt.Sprintf("job %s not found in session", task.Job))
	}
	group, labelled := node.Node.Labels[GroupLabel]
	switch {
	case !labelled && !p.strict && a.empty():
		return nil
	case !labelled:
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, reasonNoLabel)
	case a.empty():
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, reasonNoAffinity)
	}
	_, preferred := a.preferred[group]
	fits := a.required[group] || preferred
	if a.antiRequired[group] {
		fits = false
	}
	if a.antiPreferred[group] {
		fits = true
	}
	if !fits {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, reasonUnsatisfied)
	}
	return nil
}

// NodeOrder scores a labelled node by its group's place in the affinity.
func (p *Plugin) NodeOrder(task *api.TaskInfo, node *api.NodeInfo) (float64, error) {
	group, labelled := node.Node.Labels[GroupLabel]
	if !labelled {
		return 0, nil
	}
	a, ok := p.queueAffinity(task)
	if !ok || a == nil {
		return 0, nil
	}
	score := 0.0
	if a.required[group] {
		score += baseScore
	}
	if i, ok := a.preferred[group]; ok {
		if p.preferredOrder {
			n := len(a.preferred)
			score += 0.5 * baseScore * float64(n-i) / float64(n)
		} else {
			score += 0.5 * baseScore
		}
	}
	if a.antiPreferred[group] {
		score = -1
	}
	return score, nil
}
