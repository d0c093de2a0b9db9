package cache

import (
	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/client-go/tools/cache"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

func unwrap(o any) any {
	if t, ok := o.(cache.DeletedFinalStateUnknown); ok {
		return t.Obj
	}
	return o
}

func asPod(o any) *v1.Pod                { p, _ := unwrap(o).(*v1.Pod); return p }
func asNode(o any) *v1.Node              { n, _ := unwrap(o).(*v1.Node); return n }
func asPodGroup(o any) *v1beta1.PodGroup { g, _ := unwrap(o).(*v1beta1.PodGroup); return g }
func asQueue(o any) *v1beta1.Queue       { q, _ := unwrap(o).(*v1beta1.Queue); return q }
func asPriorityClass(o any) *schedulingv1.PriorityClass {
	p, _ := unwrap(o).(*schedulingv1.PriorityClass)
	return p
}

// ours reports whether this scheduler is responsible for placing the pod.
func (c *Cache) ours(pod *v1.Pod) bool { return c.schedulerNames[pod.Spec.SchedulerName] }

func terminated(s api.TaskStatus) bool { return s == api.Succeeded || s == api.Failed }

// onPod handles an added (old == nil) or updated pod: the old record goes,
// the new one comes, as Volcano's cache does.
func (c *Cache) onPod(old, pod *v1.Pod) {
	if pod == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old != nil {
		// The job record stays: a synthetic PodGroup keeps its phase.
		c.removePod(old, false)
	}
	c.addPod(pod)
	c.podsRecorded[pod.UID] = pod.ResourceVersion
}

func (c *Cache) onPodDelete(pod *v1.Pod) {
	if pod == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.removePod(pod, true)
	delete(c.assumed, api.TaskID(pod.UID))
	delete(c.releasing, api.TaskID(pod.UID))
	c.forgetPending(pod.Namespace + "/" + pod.Name)
	delete(c.podsRecorded, pod.UID)
}

// addPod records a pod. Callers hold mu.
func (c *Cache) addPod(pod *v1.Pod) {
	ours := c.ours(pod)
	if !ours && pod.Spec.NodeName == "" {
		return
	}
	t := api.NewTaskInfo(pod)
	// Decisions sent but not yet visible in the pod hold until they are, so
	// that no session places or evicts the same pod twice.
	if node, ok := c.assumed[t.UID]; ok {
		if pod.Spec.NodeName == "" {
			t.Status, t.NodeName = api.Binding, node
		} else {
			delete(c.assumed, t.UID)
		}
	}
	if c.releasing[t.UID] && !terminated(t.Status) {
		t.Status = api.Releasing
	}
	if !ours {
		t.Job = ""
	} else if t.Job == "" {
		t.Job = c.syntheticJob(pod)
	}
	if t.Job != "" {
		c.job(t.Job).AddTaskInfo(t)
	}
	if t.NodeName != "" && !terminated(t.Status) {
		c.node(t.NodeName).AddTask(t)
	}
}

// removePod forgets a pod's task, and with drop its job if nothing is left
// of it. Callers hold mu.
func (c *Cache) removePod(pod *v1.Pod, drop bool) {
	id := api.TaskID(pod.UID)
	for _, jid := range c.jobsOf(pod) {
		j, ok := c.jobs[jid]
		if !ok {
			continue
		}
		if t, ok := j.Tasks[id]; ok {
			if n, ok := c.nodes[t.NodeName]; ok {
				n.RemoveTask(t)
				c.forgetPlaceholder(t.NodeName)
			}
			j.DeleteTaskInfo(t)
		}
		if drop {
			c.dropIfEmpty(jid)
		}
	}
	// A pod of another scheduler, or one whose job record is gone, may still
	// sit on a node.
	if pod.Spec.NodeName != "" {
		if n, ok := c.nodes[pod.Spec.NodeName]; ok {
			if t, ok := n.Tasks[id]; ok {
				n.RemoveTask(t)
			}
			c.forgetPlaceholder(pod.Spec.NodeName)
		}
	}
	if node, ok := c.assumed[id]; ok {
		if n, ok := c.nodes[node]; ok {
			if t, ok := n.Tasks[id]; ok {
				n.RemoveTask(t)
			}
		}
	}
}

// jobsOf returns the job IDs a pod can be recorded under.
func (c *Cache) jobsOf(pod *v1.Pod) []api.JobID {
	if g := pod.Annotations[api.GroupNameAnnotation]; g != "" {
		return []api.JobID{api.JobID(pod.Namespace + "/" + g)}
	}
	return []api.JobID{syntheticJobID(pod)}
}

func (c *Cache) job(id api.JobID) *api.JobInfo {
	j, ok := c.jobs[id]
	if !ok {
		j = api.NewJobInfo(id)
		c.jobs[id] = j
	}
	return j
}

func (c *Cache) node(name string) *api.NodeInfo {
	n, ok := c.nodes[name]
	if !ok {
		n = api.NewPlaceholderNode(name)
		n.External = c.reservedSum(name)
		c.nodes[name] = n
		c.nodeNames = nil
	}
	return n
}

// dropIfEmpty forgets a job that has neither pods nor a PodGroup left.
func (c *Cache) dropIfEmpty(id api.JobID) {
	j, ok := c.jobs[id]
	if !ok || len(j.Tasks) > 0 {
		return
	}
	if j.PodGroup == nil || c.synthetic[id] {
		delete(c.jobs, id)
		delete(c.synthetic, id)
	}
}

func (c *Cache) onNode(node *v1.Node) {
	if node == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.node(node.Name).SetNode(node)
}

// onNodeDelete forgets a node. Pods still on it (their own deletes not
// yet seen, or a node update an event handler dropped, which arrives as a
// delete) stay on a placeholder, which snapshots leave out: pods of a
// running node get no event of their own, so a node that came back
// without them would look empty and be filled past its capacity.
func (c *Cache) onNodeDelete(node *v1.Node) {
	if node == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.nodes[node.Name]
	if ok && len(n.Tasks) > 0 {
		n.ClearNode()
		return
	}
	delete(c.nodes, node.Name)
	c.nodeNames = nil
}

// forgetPlaceholder drops a placeholder node that has no pods left.
func (c *Cache) forgetPlaceholder(name string) {
	if n, ok := c.nodes[name]; ok && n.Node == nil && len(n.Tasks) == 0 {
		delete(c.nodes, name)
		c.nodeNames = nil
	}
}

func (c *Cache) onPodGroup(pg *v1beta1.PodGroup, deleted bool) {
	if pg == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	id := api.JobID(pg.Namespace + "/" + pg.Name)
	if deleted {
		if j, ok := c.jobs[id]; ok {
			j.UnsetPodGroup()
			c.dropIfEmpty(id)
		}
		return
	}
	if pg.Spec.Queue == "" {
		pg = pg.DeepCopy()
		pg.Spec.Queue = c.opts.DefaultQueue
	}
	// Volcano's controller may create the real PodGroup of a plain pod
	// (named like ours) after we made one up; from now on its status is
	// written to the API server.
	delete(c.synthetic, id)
	c.job(id).SetPodGroup(pg)
}

func (c *Cache) onQueue(q *v1beta1.Queue, deleted bool) {
	if q == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if deleted {
		delete(c.queues, api.QueueID(q.Name))
		return
	}
	c.queues[api.QueueID(q.Name)] = api.NewQueueInfo(q)
}

func (c *Cache) onPriorityClass(pc *schedulingv1.PriorityClass, deleted bool) {
	if pc == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if deleted {
		delete(c.priorityClasses, pc.Name)
		return
	}
	c.priorityClasses[pc.Name] = pc
}
