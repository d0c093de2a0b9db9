// Package actions assembles the native actions: enqueue, allocate, backfill,
// preempt, reclaim, gangpreempt, gangreclaim and shuffle, one package each, deciding as Volcano v1.15's actions
// of the same names do.
package actions

import (
	"github.com/caldera-scheduler/caldera/scheduler/actions/allocate"
	"github.com/caldera-scheduler/caldera/scheduler/actions/backfill"
	"github.com/caldera-scheduler/caldera/scheduler/actions/enqueue"
	"github.com/caldera-scheduler/caldera/scheduler/actions/gangpreempt"
	"github.com/caldera-scheduler/caldera/scheduler/actions/gangreclaim"
	"github.com/caldera-scheduler/caldera/scheduler/actions/internal/shared"
	"github.com/caldera-scheduler/caldera/scheduler/actions/preempt"
	"github.com/caldera-scheduler/caldera/scheduler/actions/reclaim"
	"github.com/caldera-scheduler/caldera/scheduler/actions/shuffle"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// NodeSearch is how many feasible nodes the actions' searches look for
// unless their arguments say otherwise (vc-scheduler's sampling flags).
type NodeSearch = shared.NodeSearch

// DefaultNodeSearch is Volcano's: 100 nodes, 5 percent, adaptive.
func DefaultNodeSearch() NodeSearch { return shared.DefaultNodeSearch() }

// Registry returns a registry of the eight actions with Volcano's node
// search. The actions it makes share one state for the scheduler's life
// (where the next node search starts), as Volcano's share process globals;
// build one registry per scheduler.
func Registry() framework.ActionRegistry { return RegistryWith(DefaultNodeSearch()) }

// RegistryWith is Registry with the node search given.
func RegistryWith(search NodeSearch) framework.ActionRegistry {
	state := shared.New()
	state.Search = search
	r := framework.ActionRegistry{}
	for _, a := range []struct {
		name    string
		factory framework.ActionFactory
	}{
		{enqueue.Name, enqueue.Factory(state)},
		{allocate.Name, allocate.Factory(state)},
		{backfill.Name, backfill.Factory(state)},
		{preempt.Name, preempt.Factory(state)},
		{reclaim.Name, reclaim.Factory(state)},
		{gangpreempt.Name, gangpreempt.Factory(state)},
		{gangreclaim.Name, gangreclaim.Factory(state)},
		{shuffle.Name, shuffle.Factory(state)},
	} {
		if err := r.Register(a.name, a.factory); err != nil {
			// The names above are distinct constants.
			panic(err)
		}
	}
	return r
}
