// Package eviction holds what preempt and reclaim share: which tasks may be
// victims at all and whether a set of victims makes room. The order in which
// victims are taken is the session's (framework.Session.VictimQueue), since
// plugins that pick victims take them in that order too.
package eviction

import (
	"fmt"

	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// PreemptableStatus reports whether a task in this status may be preempted:
// it is bound or running.
func PreemptableStatus(s api.TaskStatus) bool { return s == api.Bound || s == api.Running }

// Validate reports whether evicting every victim would leave room for the
// preemptor on the node. No victims can still be enough: an earlier
// eviction may have freed the room already.
func Validate(preemptor *api.TaskInfo, node *api.NodeInfo, victims []*api.TaskInfo) error {
	room := node.FutureIdle()
	for _, v := range victims {
		room.Add(v.Resreq)
	}
	if !preemptor.InitResreq.LessEqual(room, api.Zero) {
		return fmt.Errorf("not enough resources: requested <%v>, but future idle <%v>", preemptor.InitResreq, room)
	}
	return nil
}

// PreemptNever reports whether the task's pod refuses to preempt others.
func PreemptNever(task *api.TaskInfo) bool {
	p := task.Pod.Spec.PreemptionPolicy
	return p != nil && *p == v1.PreemptNever
}
