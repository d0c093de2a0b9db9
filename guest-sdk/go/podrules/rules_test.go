package podrules

import (
	"fmt"
	"testing"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

// outcome is how a node fares against a task's rules, as the scheduler
// sorts it: per rule, 0 where it passes, else the failing state.
func outcome(rules []caldera.DomainRule, n *caldera.Node) string {
	var out []byte
	for _, r := range rules {
		state := caldera.FailMissing
		if v, ok := n.Labels[r.Key]; ok {
			state = caldera.FailUnlisted
			for _, l := range r.Values {
				if l == v {
					state = caldera.FailListed
				}
			}
		}
		if r.Fail&state == 0 {
			state = 0
		}
		out = append(out, '0'+byte(state))
	}
	return string(out)
}

// TestRulesSayWhatFiltersRead: as pods are placed, a node passes every rule
// exactly when both filters pass it, and nodes that fail the same rules in
// the same states get the same reasons: what the scheduler relies on to
// keep the verdicts.
func TestRulesSayWhatFiltersRead(t *testing.T) {
	v := view(6, "db", "db", "db", "db", "web")
	// A node without a zone, so that spread's missing-label state shows.
	v.Nodes = append(v.Nodes, caldera.Node{Name: "bare", Handle: 6, Labels: map[string]string{hostnameKey: "bare"}})
	idx := NewIndex(v)
	byOutcome := map[string]string{}
	for step, node := range []int32{-1, 0, 3, 1} {
		if node >= 0 {
			place(idx, v, int32(step-1), node)
		}
		task := &v.Tasks[3]
		aff, spread := NewAffinityFilter(idx, task), NewSpreadFilter(idx, task)
		var rules caldera.DomainRules
		kinds := spread.AppendRules(&rules, aff.AppendRules(&rules, nil))
		for i := range v.Nodes {
			n := &v.Nodes[i]
			r1, u1 := aff.Filter(n)
			r2, u2 := spread.Filter(n)
			verdict := fmt.Sprintf("%s|%v|%s|%v", r1, u1, r2, u2)
			o := string(kinds) + ":" + outcome(rules.Rules, n)
			passes := r1 == "" && r2 == ""
			if allPass := o[len(kinds)+1:] == fmt.Sprintf("%0*d", len(rules.Rules), 0); allPass != passes {
				t.Errorf("after %d placements, %s: rules %s, filters %q %q", step, n.Name, o, r1, r2)
			}
			if seen, ok := byOutcome[o]; ok && seen != verdict {
				t.Errorf("after %d placements, %s: outcome %s gave %q, earlier %q", step, n.Name, o, verdict, seen)
			}
			byOutcome[o] = verdict
		}
	}
	if len(byOutcome) < 3 {
		t.Errorf("only %d outcomes seen: %v", len(byOutcome), byOutcome)
	}
}
