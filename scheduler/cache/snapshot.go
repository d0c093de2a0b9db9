package cache

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// Snapshot returns the session's own copy of the cluster: Ready nodes (their
// NUMA information brought up to the agents' reports first), the queues,
// and the jobs that have a PodGroup in a known queue, with priorities
// resolved from PriorityClasses. A task that is both in a job and on a node is
// one object in the snapshot, so a decision made through either is seen
// through both. Pods, node objects, NUMA information and queue objects are
// shared, not copied.
func (c *Cache) Snapshot() *api.ClusterInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.refreshNuma()
	snap := api.NewClusterInfo()
	for id, q := range c.queues {
		cp := *q
		snap.Queues[id] = &cp
	}
	defaultPriority := int32(0)
	for _, pc := range c.priorityClasses {
		if pc.GlobalDefault {
			defaultPriority = pc.Value
		}
	}
	tasks := map[api.TaskID]*api.TaskInfo{}
	for id, j := range c.jobs {
		if j.PodGroup == nil {
			continue
		}
		if _, ok := c.queues[j.Queue]; !ok {
			continue
		}
		cj := j.Clone()
		cj.Priority = defaultPriority
		if pc, ok := c.priorityClasses[j.PodGroup.Spec.PriorityClassName]; ok {
			cj.Priority = pc.Value
		}
		for tid, t := range cj.Tasks {
			tasks[tid] = t
		}
		snap.Jobs[id] = cj
	}
	resolve := func(t *api.TaskInfo) *api.TaskInfo {
		if s, ok := tasks[t.UID]; ok {
			return s
		}
		return t.Clone()
	}
	for _, name := range c.sortedNodeNames() {
		n := c.nodes[name]
		if n.Node == nil || !n.Ready {
			continue
		}
		snap.Nodes[name] = n.Clone(resolve)
		snap.NodeList = append(snap.NodeList, name)
	}
	snap.NamespaceLabels = c.namespaceLabels()
	snap.Workloads = c.workloads()
	snap.DisruptionBudgets, _ = c.informers.Policy().V1().PodDisruptionBudgets().Lister().List(labels.Everything())
	snap.QuotaStatus = c.quotaStatus()
	snap.Storage = c.storageSnapshot()
	snap.Devices = c.devicesSnapshot()
	if !c.opts.WithoutHyperNodes {
		snap.HyperNodes, _ = c.vcInformers.Topology().V1alpha1().HyperNodes().Lister().List(labels.Everything())
	}
	return snap
}

// quotaStatus reads the status of every ResourceQuota, by namespace and
// name, as Volcano's namespace collection keeps it; nil when there are
// none.
func (c *Cache) quotaStatus() map[string]map[string]v1.ResourceQuotaStatus {
	list, err := c.informers.Core().V1().ResourceQuotas().Lister().List(labels.Everything())
	if err != nil || len(list) == 0 {
		return nil
	}
	out := map[string]map[string]v1.ResourceQuotaStatus{}
	for _, q := range list {
		if out[q.Namespace] == nil {
			out[q.Namespace] = map[string]v1.ResourceQuotaStatus{}
		}
		out[q.Namespace][q.Name] = q.Status
	}
	return out
}

// workloads reads the selectors of the Services and controllers the
// informers hold; nil when there are none.
func (c *Cache) workloads() *api.Workloads {
	w := &api.Workloads{}
	if list, err := c.informers.Core().V1().Services().Lister().List(labels.Everything()); err == nil {
		for _, s := range list {
			if s.Spec.Selector == nil {
				continue
			}
			if w.Services == nil {
				w.Services = map[string][]map[string]string{}
			}
			w.Services[s.Namespace] = append(w.Services[s.Namespace], s.Spec.Selector)
		}
	}
	if list, err := c.informers.Core().V1().ReplicationControllers().Lister().List(labels.Everything()); err == nil && len(list) > 0 {
		w.ReplicationControllers = make(map[string]map[string]string, len(list))
		for _, rc := range list {
			w.ReplicationControllers[rc.Namespace+"/"+rc.Name] = rc.Spec.Selector
		}
	}
	if list, err := c.informers.Apps().V1().ReplicaSets().Lister().List(labels.Everything()); err == nil && len(list) > 0 {
		w.ReplicaSets = make(map[string]*metav1.LabelSelector, len(list))
		for _, rs := range list {
			w.ReplicaSets[rs.Namespace+"/"+rs.Name] = rs.Spec.Selector
		}
	}
	if list, err := c.informers.Apps().V1().StatefulSets().Lister().List(labels.Everything()); err == nil && len(list) > 0 {
		w.StatefulSets = make(map[string]*metav1.LabelSelector, len(list))
		for _, ss := range list {
			w.StatefulSets[ss.Namespace+"/"+ss.Name] = ss.Spec.Selector
		}
	}
	if w.Empty() {
		return nil
	}
	return w
}

// namespaceLabels reads the labels of every Namespace the informer holds.
func (c *Cache) namespaceLabels() map[string]map[string]string {
	list, err := c.informers.Core().V1().Namespaces().Lister().List(labels.Everything())
	if err != nil || len(list) == 0 {
		return nil
	}
	out := make(map[string]map[string]string, len(list))
	for _, ns := range list {
		out[ns.Name] = ns.Labels
	}
	return out
}
