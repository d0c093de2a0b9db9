package benchmarks

import (
	"sync/atomic"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// snapshotCache hands every session a fresh copy of one cluster, made the
// way the real cache makes its snapshot (jobs cloned, nodes cloned sharing
// the jobs' task copies), and counts binds instead of sending them.
type snapshotCache struct {
	base  *api.ClusterInfo
	binds atomic.Int64
}

func (c *snapshotCache) Snapshot() *api.ClusterInfo {
	snap := api.NewClusterInfo()
	tasks := map[api.TaskID]*api.TaskInfo{}
	for id, j := range c.base.Jobs {
		cj := j.Clone()
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
	for _, name := range c.base.NodeList {
		snap.Nodes[name] = c.base.Nodes[name].Clone(resolve)
	}
	snap.NodeList = c.base.NodeList
	for id, q := range c.base.Queues {
		cp := *q
		snap.Queues[id] = &cp
	}
	return snap
}

func (c *snapshotCache) Bind(*api.TaskInfo, string) error   { c.binds.Add(1); return nil }
func (c *snapshotCache) Evict(*api.TaskInfo, string) error  { return nil }
func (c *snapshotCache) UpdateJobStatus(*api.JobInfo, bool) {}
