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

// Snapshot hands every session a fresh copy of the cluster, made as the
// real cache makes its snapshot.
func (c *snapshotCache) Snapshot() *api.ClusterInfo { return c.base.Clone() }

func (c *snapshotCache) Bind(*api.TaskInfo, string) error   { c.binds.Add(1); return nil }
func (c *snapshotCache) Evict(*api.TaskInfo, string) error  { return nil }
func (c *snapshotCache) UpdateJobStatus(*api.JobInfo, bool) {}
