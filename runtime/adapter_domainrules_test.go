package runtime

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// TestDomainRulesSortNodes: a node's failures name each rule it fails
// and how, nodes that pass every rule share the class's key with tasks
// without rules, and failing nodes are kept apart by rule class and by
// the state in which each rule fails.
func TestDomainRulesSortNodes(t *testing.T) {
	node := func(labels map[string]string) *api.NodeInfo {
		return api.NewNodeInfo(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: labels}})
	}
	a := &adapter{ssn: &framework.Session{NodeList: []*api.NodeInfo{
		node(map[string]string{"zone": "a", "host": "n0"}),
		node(map[string]string{"zone": "b", "host": "n1"}),
		node(map[string]string{"host": "n2"}),
		node(map[string]string{"zone": "c", "host": "n3"}),
	}}}
	spread := abi.DomainRule{Key: "zone", Values: []string{"a", "gone"}, Fail: abi.FailMissing | abi.FailListed}
	anti := abi.DomainRule{Key: "host", Values: []string{"n3"}, Fail: abi.FailListed}
	tr := a.compileRules(&abi.DomainRules{RuleClass: 1, Rules: []abi.DomainRule{spread, anti}})
	if tr == nil || tr.unusable {
		t.Fatalf("rules compiled to %+v", tr)
	}
	// Two bits per rule: 1 missing, 2 listed, 3 unlisted.
	for h, want := range []uint64{0b0010, 0, 0b0001, 0b1000} {
		if got := tr.failures(int32(h)); got != want {
			t.Errorf("node %d fails %04b, want %04b", h, got, want)
		}
	}

	c := &predicateCache{shape: 77, rules: tr, ruleShape: classShape(77, 1)}
	plain := &predicateCache{shape: 77}
	if c.keyAt(1) != plain.keyAt(1) {
		t.Error("a node passing every rule is not kept under the class's key")
	}
	if c.keyAt(0) == c.keyAt(1) || c.keyAt(0) == c.keyAt(2) || c.keyAt(0) == c.keyAt(3) {
		t.Error("nodes failing different rules, or failing one differently, share a key")
	}
	other := &predicateCache{shape: 77, rules: tr, ruleShape: classShape(77, 2)}
	if other.keyAt(0) == c.keyAt(0) {
		t.Error("another rule class shares a failing node's key")
	}

	// A rule set the host cannot apply serves the task without kept
	// verdicts; an empty one passes every node.
	many := make([]abi.DomainRule, abi.MaxDomainRules+1)
	for i := range many {
		many[i] = anti
	}
	if tr := a.compileRules(&abi.DomainRules{Rules: many}); !tr.unusable {
		t.Error("more than MaxDomainRules rules were used")
	}
	for _, fail := range []abi.RuleFail{8, 258, -1} {
		if tr := a.compileRules(&abi.DomainRules{Rules: []abi.DomainRule{{Key: "zone", Fail: fail}}}); !tr.unusable {
			t.Errorf("a fail of %d was used", fail)
		}
	}
	if tr := a.compileRules(&abi.DomainRules{}); tr == nil || tr.unusable || tr.failures(0) != 0 {
		t.Errorf("no rules compiled to %+v", tr)
	}
	if a.compileRules(nil) != nil {
		t.Error("a pre_predicate without rules compiled to some")
	}
}
