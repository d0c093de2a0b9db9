// Command pdb is the Wasm port of Caldera's native pdb plugin (Volcano's
// pdb): preemption, reclaim and shuffle take no victim that a
// PodDisruptionBudget protects. It reads the budgets from the session view
// (ABI 1.8).
//
// Each call starts every budget from its status.disruptionsAllowed; a
// candidate uses one disruption of every budget of its namespace whose
// selector matches its labels and that does not list it as disrupted
// already, and is refused when one of them goes below zero. A budget
// without a selector, or with an empty one, selects nothing; a candidate
// without labels is never a victim. It always votes.
package main

import caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"

func main() {}

func init() { caldera.Register(&pdb{}) }

// pdb keeps the buffers of the last call: the SDK encodes the victims
// before the next call, so one slice serves every call.
type pdb struct {
	victims []*caldera.Task
	allowed []int32
}

func (*pdb) Name() string { return "pdb" }

// Preemptable keeps the candidates the budgets allow.
func (p *pdb) Preemptable(s *caldera.Session, _ *caldera.Task, candidates []*caldera.Task) ([]*caldera.Task, bool) {
	return p.VictimTasks(s, candidates), true
}

// Reclaimable keeps the candidates the budgets allow.
func (p *pdb) Reclaimable(s *caldera.Session, _ *caldera.Task, candidates []*caldera.Task) ([]*caldera.Task, bool) {
	return p.VictimTasks(s, candidates), true
}

// VictimTasks keeps, in order, the tasks whose disruption no budget
// forbids, counting each kept or refused task against its budgets.
func (p *pdb) VictimTasks(s *caldera.Session, tasks []*caldera.Task) []*caldera.Task {
	budgets := s.View.DisruptionBudgets
	p.allowed = p.allowed[:0]
	for _, b := range budgets {
		p.allowed = append(p.allowed, b.DisruptionsAllowed)
	}
	p.victims = p.victims[:0]
	for _, t := range tasks {
		if len(t.Labels) == 0 {
			continue
		}
		violated := false
		for i := range budgets {
			b := &budgets[i]
			if b.Namespace != t.Namespace || !selects(b.Selector, t.Labels) || disrupted(b, t.Name) {
				continue
			}
			if p.allowed[i]--; p.allowed[i] < 0 {
				violated = true
			}
		}
		if !violated {
			p.victims = append(p.victims, t)
		}
	}
	return p.victims
}

// selects reports whether a budget's selector takes a pod: as Volcano,
// neither a missing nor an empty selector takes any.
func selects(sel *caldera.Selector, labels map[string]string) bool {
	return sel != nil && len(sel.Requirements) > 0 && sel.Matches(labels)
}

func disrupted(b *caldera.DisruptionBudget, pod string) bool {
	for _, name := range b.DisruptedPods {
		if name == pod {
			return true
		}
	}
	return false
}
