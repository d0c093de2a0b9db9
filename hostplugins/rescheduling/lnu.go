package rescheduling

import (
	"cmp"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// nodeUse is a node and its use as the strategy counts it down.
type nodeUse struct {
	node *api.NodeInfo
	use  utilization
}

// lowNodeUtilizationVictims is Volcano v1.15's lowNodeUtilization: when
// some nodes are under every low threshold and others over a target
// threshold, it names running pods of the busiest nodes, lowest priority
// and QoS first, while the node stays at or over a target and the quiet
// nodes have room left under their targets.
func lowNodeUtilizationVictims(nodes []*api.NodeInfo, a args, tasks []*api.TaskInfo) []*api.TaskInfo {
	cfg := a.lnu
	var low, high []*nodeUse
	for _, n := range nodes {
		u := &nodeUse{node: n, use: usageOf(n, a.metricsPeriod)}
		switch {
		case isLow(u, cfg):
			low = append(low, u)
		case u.use.cpu > cfg.target.cpu || u.use.memory > cfg.target.memory:
			high = append(high, u)
		}
	}
	if len(low) == 0 || len(low) == len(nodes) || len(high) == 0 {
		return nil
	}

	// The room the quiet nodes have up to their targets, in milli-CPU and
	// bytes, truncated per node as Volcano converts percentages.
	var roomCPU, roomMemory int64
	for _, u := range low {
		cpu, memory := allocatableOf(u.node)
		roomCPU += int64(cfg.target.cpu*float64(cpu)*0.01) - int64(u.use.cpu*float64(cpu)*0.01)
		roomMemory += int64(cfg.target.memory*float64(memory)*0.01) - int64(u.use.memory*float64(memory)*0.01)
	}

	// Busiest first by CPU plus memory percent; ties by name, where
	// Volcano's order is unspecified.
	slices.SortStableFunc(high, func(x, y *nodeUse) int {
		if c := cmp.Compare(y.use.cpu+y.use.memory, x.use.cpu+x.use.memory); c != 0 {
			return c
		}
		return strings.Compare(x.node.Name, y.node.Name)
	})

	running := make(map[api.TaskID]*api.TaskInfo, len(tasks))
	for _, t := range tasks {
		running[t.UID] = t
	}
	var victims []*api.TaskInfo
	for _, u := range high {
		onNode := make([]*api.TaskInfo, 0, len(u.node.Tasks))
		for _, t := range u.node.Tasks {
			onNode = append(onNode, t)
		}
		slices.SortFunc(onNode, evictionOrder)
		cpuCap, memoryCap := capacityOf(u.node)
		for _, t := range onNode {
			if !stillBusy(u, cfg) || roomCPU == 0 || roomMemory == 0 {
				break
			}
			v := running[t.UID]
			if v == nil || v.Resreq == nil {
				continue
			}
			cpu, memory := int64(v.Resreq.MilliCPU), int64(v.Resreq.Memory)
			roomCPU -= cpu
			roomMemory -= memory
			u.use.cpu -= percent(float64(cpu)/1000, cpuCap)
			u.use.memory -= percent(float64(memory), memoryCap)
			victims = append(victims, v)
		}
	}
	return victims
}

func usageOf(n *api.NodeInfo, period string) utilization {
	if n.Usage == nil {
		return utilization{}
	}
	return utilization{cpu: n.Usage.CPUUsageAvg[period], memory: n.Usage.MemoryUsageAvg[period]}
}

// isLow: a schedulable node under the low threshold in CPU and memory.
func isLow(u *nodeUse, cfg lnuConfig) bool {
	if u.node.Node != nil && u.node.Node.Spec.Unschedulable {
		return false
	}
	return u.use.cpu < cfg.low.cpu && u.use.memory < cfg.low.memory
}

// stillBusy: the node is at or over a target threshold. Volcano stops at
// a room of exactly zero only, so a room overdrawn by the last pod lets
// eviction go on while the node stays busy; so does Caldera.
func stillBusy(u *nodeUse, cfg lnuConfig) bool {
	return u.use.cpu >= cfg.target.cpu || u.use.memory >= cfg.target.memory
}

// allocatableOf is the node's allocatable CPU (milli) and memory (bytes),
// its capacity when it reports no allocatable, as Volcano reads them.
func allocatableOf(n *api.NodeInfo) (cpu, memory int64) {
	if n.Node == nil {
		return 0, 0
	}
	rl := n.Node.Status.Allocatable
	if len(rl) == 0 {
		rl = n.Node.Status.Capacity
	}
	return rl.Cpu().MilliValue(), rl.Memory().Value()
}

// capacityOf is the node's CPU (cores) and memory (bytes) capacity, by
// which Volcano turns an evicted pod's request into the percent it frees.
func capacityOf(n *api.NodeInfo) (cpu, memory float64) {
	if n.Node == nil {
		return 0, 0
	}
	return n.Node.Status.Capacity.Cpu().AsApproximateFloat64(), n.Node.Status.Capacity.Memory().AsApproximateFloat64()
}

func percent(amount, capacity float64) float64 {
	if capacity <= 0 {
		return 0
	}
	return amount * 100 / capacity
}

// evictionOrder: pods without a priority first, then lower priorities,
// then BestEffort, Burstable, Guaranteed; then by namespace and name.
// Volcano's comparison means this order but is not a strict ordering (two
// BestEffort pods each come first), so its ties fall by chance.
func evictionOrder(a, b *api.TaskInfo) int {
	pa, pb := a.Pod.Spec.Priority, b.Pod.Spec.Priority
	if (pa == nil) != (pb == nil) {
		if pa == nil {
			return -1
		}
		return 1
	}
	if pa != nil && *pa != *pb {
		return cmp.Compare(*pa, *pb)
	}
	if c := cmp.Compare(qosRank(a.Pod), qosRank(b.Pod)); c != 0 {
		return c
	}
	return strings.Compare(a.Key(), b.Key())
}

func qosRank(p *v1.Pod) int {
	switch api.PodQOS(p) {
	case v1.PodQOSBestEffort:
		return 0
	case v1.PodQOSBurstable:
		return 1
	}
	return 2
}
