// Package shuffle is the shuffle action: it evicts the running pods that
// the plugins' victim_tasks hooks name (tdm's pods on closed revocable
// zones, rescheduling's picks), whatever is pending.
//
// As in Volcano v1.15 (pkg/scheduler/actions/shuffle): every Running task
// of the session's jobs is offered to VictimTasks, whose tiers are united
// (the first tier with any answer decides), and each task named is evicted
// with the reason "shuffle"; an eviction the cluster refuses is logged and
// the others go on. The tasks are offered in job and pod-name order, so
// that a session decides the same way each time. The action takes no
// arguments.
//
// Victim hooks name what to evict, not what a budget allows: pdb's answers
// every pod its budgets let go, so shuffle with pdb alone evicts all of
// them, as Volcano's does.
package shuffle

import (
	"slices"
	"strings"

	"k8s.io/klog/v2"

	"github.com/caldera-scheduler/caldera/scheduler/actions/internal/shared"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Name is the action's name in the configuration.
const Name = "shuffle"

// Factory returns the action's factory; shuffle needs no shared state.
func Factory(*shared.State) framework.ActionFactory {
	return func(args framework.Arguments) (framework.Action, error) {
		if err := args.RejectUnknown(); err != nil {
			return nil, err
		}
		return &action{}, nil
	}
}

type action struct{}

func (*action) Name() string { return Name }

// Execute evicts what the victim hooks name among the running tasks.
func (*action) Execute(ssn *framework.Session) {
	var running []*api.TaskInfo
	for _, job := range ssn.JobList {
		var tasks []*api.TaskInfo
		for _, t := range job.TaskStatusIndex[api.Running] {
			tasks = append(tasks, t)
		}
		slices.SortFunc(tasks, func(a, b *api.TaskInfo) int { return strings.Compare(a.Name, b.Name) })
		running = append(running, tasks...)
	}
	if len(running) == 0 {
		return
	}
	seen := map[api.TaskID]bool{}
	for _, victim := range ssn.VictimTasks(running) {
		if seen[victim.UID] {
			continue
		}
		seen[victim.UID] = true
		stmt := framework.NewStatement(ssn)
		if err := stmt.Evict(victim, Name); err != nil {
			klog.ErrorS(err, "Shuffle evict failed", "task", victim.Key())
			continue
		}
		stmt.Commit()
	}
}
