package pdb

import (
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Name is the plugin's name in the scheduler configuration.
const Name = "pdb"

// Plugin keeps victims within the cluster's disruption budgets.
type Plugin struct {
	budgets []budget
}

// budget is a PodDisruptionBudget with its selector parsed; a selector
// that does not parse matches nothing, as in Volcano.
type budget struct {
	pdb      *policyv1.PodDisruptionBudget
	selector labels.Selector
}

var (
	_ framework.PreemptableFilter   = &Plugin{}
	_ framework.ReclaimableFilter   = &Plugin{}
	_ framework.VictimTasksProvider = &Plugin{}
)

// New makes the plugin. It has no arguments.
func New(framework.Arguments) (framework.Plugin, error) { return &Plugin{}, nil }

// Name returns "pdb".
func (*Plugin) Name() string { return Name }

// OnSessionOpen parses the session's budgets once.
func (p *Plugin) OnSessionOpen(ssn *framework.Session) {
	p.budgets = nil
	for _, pdb := range ssn.DisruptionBudgets {
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil || sel.Empty() {
			continue
		}
		p.budgets = append(p.budgets, budget{pdb: pdb, selector: sel})
	}
}

// OnSessionClose forgets the budgets.
func (p *Plugin) OnSessionClose(*framework.Session) { p.budgets = nil }

// Preemptable keeps the candidates the budgets allow.
func (p *Plugin) Preemptable(_ *api.TaskInfo, candidates []*api.TaskInfo) ([]*api.TaskInfo, bool) {
	return p.VictimTasks(candidates), true
}

// Reclaimable keeps the candidates the budgets allow.
func (p *Plugin) Reclaimable(_ *api.TaskInfo, candidates []*api.TaskInfo) ([]*api.TaskInfo, bool) {
	return p.VictimTasks(candidates), true
}

// VictimTasks keeps, in order, the tasks whose disruption no budget
// forbids, counting each kept or refused task against its budgets.
func (p *Plugin) VictimTasks(tasks []*api.TaskInfo) []*api.TaskInfo {
	allowed := make([]int32, len(p.budgets))
	for i, b := range p.budgets {
		allowed[i] = b.pdb.Status.DisruptionsAllowed
	}
	var victims []*api.TaskInfo
	for _, t := range tasks {
		pod := t.Pod
		if pod == nil || len(pod.Labels) == 0 {
			continue
		}
		violated := false
		for i, b := range p.budgets {
			if b.pdb.Namespace != pod.Namespace || !b.selector.Matches(labels.Set(pod.Labels)) {
				continue
			}
			if _, disrupted := b.pdb.Status.DisruptedPods[pod.Name]; disrupted {
				continue
			}
			if allowed[i]--; allowed[i] < 0 {
				violated = true
			}
		}
		if !violated {
			victims = append(victims, t)
		}
	}
	return victims
}
