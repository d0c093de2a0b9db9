package cache

import "github.com/caldera-scheduler/caldera/scheduler/api"

// TaskView is the cache's view of one pod: the node it holds (or is being
// bound to) and its status.
type TaskView struct {
	Node   string
	Status api.TaskStatus
}

// TaskStates returns the cache's view of every pod it holds, on nodes or in
// jobs. The simulator uses it to wait until the informers have caught up with
// what it changed, including pods that are gone.
func (c *Cache) TaskStates() map[api.TaskID]TaskView {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[api.TaskID]TaskView{}
	for _, j := range c.jobs {
		for id, t := range j.Tasks {
			out[id] = TaskView{Node: t.NodeName, Status: t.Status}
		}
	}
	// A node's record wins: it is where the pod's resources are counted.
	for _, n := range c.nodes {
		for id, t := range n.Tasks {
			out[id] = TaskView{Node: t.NodeName, Status: t.Status}
		}
	}
	return out
}

// PodGroupPhases returns the phase the cache holds for every PodGroup that
// exists in the API server (made-up PodGroups of plain pods are left out),
// by "namespace/name". The simulator waits until it matches the API server:
// an informer event for an older status write can arrive after a newer
// write, and the next session must not see the older one.
func (c *Cache) PodGroupPhases() map[string]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]string{}
	for id, j := range c.jobs {
		if j.PodGroup == nil || c.synthetic[id] {
			continue
		}
		out[string(id)] = string(j.PodGroup.Status.Phase)
	}
	return out
}
