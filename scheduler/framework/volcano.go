package framework

import (
	"fmt"
	"slices"
)

// VolcanoPlugins and VolcanoActions are the names Volcano v1.15's scheduler
// registers (its pkg/scheduler/plugins and actions factories). A
// configuration written for Volcano may name any of them; the ones Caldera
// has no plugin or action for are refused by name, so that a user
// switching over learns what is missing at load and not from placements.
// README's "Volcano's plugins and actions" lists the same names, and a
// test keeps the two in step.
var (
	VolcanoPlugins = []string{
		"binpack", "capacity", "cdp", "conformance", "deviceshare", "drf", "extender", "gang",
		"network-topology-aware", "nodegroup", "nodeorder", "numa-aware", "overcommit", "pdb",
		"predicates", "priority", "proportion", "rescheduling", "resource-strategy-fit",
		"resourcequota", "sla", "task-topology", "tdm", "usage",
	}
	VolcanoActions = []string{
		"allocate", "backfill", "enqueue", "gangpreempt", "gangreclaim", "preempt", "reclaim", "shuffle",
	}
)

// unknownName explains a name no registry holds.
func unknownName(kind, name string, volcano, known []string) error {
	if slices.Contains(volcano, name) {
		return fmt.Errorf("Volcano's %s %s is not implemented in Caldera (README, \"Volcano's plugins and actions\"); available: %q", name, kind, known)
	}
	return fmt.Errorf("unknown %s: expected one of %q", kind, known)
}
