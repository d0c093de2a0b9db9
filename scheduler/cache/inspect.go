package cache

import "github.com/caldera-scheduler/caldera/scheduler/api"

// TaskState reports the cache's current view of a pod: the node it holds (or
// is being bound to) and its status. The simulator uses it to wait until the
// informers have caught up with what it changed.
func (c *Cache) TaskState(uid api.TaskID) (node string, status api.TaskStatus, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range c.nodes {
		if t, found := n.Tasks[uid]; found {
			return t.NodeName, t.Status, true
		}
	}
	for _, j := range c.jobs {
		if t, found := j.Tasks[uid]; found {
			return t.NodeName, t.Status, true
		}
	}
	return "", 0, false
}
