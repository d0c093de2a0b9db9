// Command draining is a scheduling policy no native plugin offers: nodes
// annotated caldera.sh/draining=true (for example ahead of maintenance)
// take no new tasks, while what already runs there stays. Unlike cordoning
// (spec.unschedulable), it applies only to the pods this scheduler places,
// so other schedulers' daemons can still land.
//
// Arguments: draining.annotation (default caldera.sh/draining) names the
// annotation whose value "true" drains a node.
package main

import caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"

func main() {}

func init() { caldera.Register(&draining{}) }

type draining struct{ annotation string }

func (*draining) Name() string { return "draining" }

func (d *draining) OnSessionOpen(s *caldera.Session) error {
	d.annotation = "caldera.sh/draining"
	if a, ok := s.Arguments["draining.annotation"].(string); ok && a != "" {
		d.annotation = a
	}
	return nil
}

func (d *draining) PredicateBatch(_ *caldera.Session, _ *caldera.Task, nodes []*caldera.Node, verdicts []caldera.Verdict) {
	for i, n := range nodes {
		if n.Annotations[d.annotation] == "true" {
			verdicts[i] = caldera.Reject("node(s) were draining")
		}
	}
}
