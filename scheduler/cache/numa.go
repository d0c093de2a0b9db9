package cache

import (
	"fmt"

	"k8s.io/client-go/tools/cache"
	nodeinfov1alpha1 "volcano.sh/apis/pkg/apis/nodeinfo/v1alpha1"

	"github.com/caldera-scheduler/caldera/internal/logonce"
	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// Nodes' NUMA information, from Volcano's Numatopology objects
// (nodeinfo.volcano.sh/v1alpha1, one per node, of the node's name) as
// Volcano v1.15's cache keeps it (volcano-sh/volcano@8fc394c11e8d
// pkg/scheduler/cache event_handlers.go addNumaInfo, cache.go
// UpdateSchedulerNumaInfo, api/node_info.go RefreshNumaSchedulerInfoByCrd):
// the agent's last report, and beside it what sessions see, which is the
// report less the CPUs sessions assigned since. At each snapshot a report
// that came in replaces what sessions see, unless it shrank every
// resource's allocatable set (the kubelet may not have taken up all the
// assigned CPUs yet): then, resource by resource, the report's set is
// taken only where it is no larger than the scheduler's own. The
// policies, CPU placement and reservation always come from the latest
// report, where Volcano keeps the older ones in that case. Faults in a
// report are logged once each (api.NewNumaInfo says how each is read); a
// report that cannot be used counts as deleted.

// numaChange is how a node's report changed since the last snapshot
// (Volcano's NumaChgFlag).
type numaChange int

const (
	numaUnchanged numaChange = iota
	// numaGrew: a first report, or one in which some resource's
	// allocatable set is no smaller than in the report before.
	numaGrew
	// numaShrank: every resource's allocatable set is smaller.
	numaShrank
)

// numaState is what the cache holds of one node's NUMA topology, by the
// Numatopology's name.
type numaState struct {
	// reported is the agent's last report; nil once it is deleted or
	// unusable.
	reported *api.NumaInfo
	change   numaChange
	// scheduled is what sessions see (NodeInfo.Numa); nil before the
	// first snapshot after a report.
	scheduled *api.NumaInfo
}

// numaEvents records Numatopology events in the cache. They are not
// offered to the event handler (whose kinds are the pods, nodes, PodGroups,
// Queues and PriorityClasses of the ABI): no handler can change or drop
// them.
func (c *Cache) numaEvents() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { c.onNumatopology(o, false) },
		UpdateFunc: func(_, n any) { c.onNumatopology(n, false) },
		DeleteFunc: func(o any) { c.onNumatopology(o, true) },
	}
}

func (c *Cache) onNumatopology(o any, deleted bool) {
	obj, _ := unwrap(o).(*nodeinfov1alpha1.Numatopology)
	if obj == nil {
		return
	}
	var info *api.NumaInfo
	if !deleted {
		var faults []api.NumaFault
		info, faults = api.NewNumaInfo(obj)
		where := "Numatopology " + obj.Name
		for _, f := range faults {
			logonce.Warning(where, f.Error()+"; "+f.Consequence)
		}
		if info == nil {
			logonce.Warning(where, fmt.Sprintf("unusable (resourceVersion %s); node %s counts as having no NUMA information until a usable report", obj.ResourceVersion, obj.Name))
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.numa[obj.Name]
	if st == nil {
		if info == nil {
			return
		}
		st = &numaState{}
		c.numa[obj.Name] = st
	}
	switch {
	case info == nil:
		st.change = numaUnchanged
	case st.reported == nil || noneShrank(st.reported, info):
		st.change = numaGrew
	default:
		st.change = numaShrank
	}
	st.reported = info
}

// noneShrank reports whether some resource's allocatable set in the old
// report is no larger in the new one (Volcano's NumatopoInfo.Compare; a
// resource the new report lacks counts as empty).
func noneShrank(old, cur *api.NumaInfo) bool {
	for name, set := range old.Allocatable {
		if set.Size() <= cur.Allocatable[name].Size() {
			return true
		}
	}
	return false
}

// refreshNuma brings what sessions see up to the reports received, and
// hands it to the nodes. Callers hold mu.
func (c *Cache) refreshNuma() {
	for name, st := range c.numa {
		switch {
		case st.reported == nil:
			st.scheduled = nil
		case st.scheduled == nil || st.change == numaGrew:
			st.scheduled = st.reported
		case st.change == numaShrank:
			sets := st.scheduled.Allocatable.Clone()
			for res, set := range st.reported.Allocatable {
				if cur, ok := sets[res]; !ok || cur.Size() >= set.Size() {
					sets[res] = set
				}
			}
			st.scheduled = st.reported.WithAllocatable(sets)
		}
		st.change = numaUnchanged
		if n := c.nodes[name]; n != nil {
			n.SetNuma(st.scheduled)
		}
		if st.scheduled == nil {
			delete(c.numa, name)
		}
	}
}

// UpdateNumaSets (framework.NumaSetsWriter) takes the CPUs a session
// assigned off what later sessions see of each node, until its agent
// reports again.
func (c *Cache) UpdateNumaSets(assigned map[string]api.NumaSets) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for name, sets := range assigned {
		st := c.numa[name]
		if st == nil || st.scheduled == nil {
			continue
		}
		free := st.scheduled.Allocatable.Clone()
		free.Take(sets)
		st.scheduled = st.scheduled.WithAllocatable(free)
		if n := c.nodes[name]; n != nil {
			n.SetNuma(st.scheduled)
		}
	}
}
