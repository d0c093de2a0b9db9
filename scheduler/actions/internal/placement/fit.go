package placement

import (
	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// FitsFutureIdle reports whether req fits what the node will have once
// releasing tasks are gone and pipelined tasks have taken theirs, for one-off
// checks; actions that check many nodes use Session.Fit.
func FitsFutureIdle(req *api.Resource, node *api.NodeInfo) bool {
	return api.NewFit(req).FitsFutureIdle(node)
}

// Gated reports whether the task's pod still waits on scheduling gates;
// no action places such a task.
func Gated(task *api.TaskInfo) bool { return task.Pod != nil && len(task.Pod.Spec.SchedulingGates) > 0 }
