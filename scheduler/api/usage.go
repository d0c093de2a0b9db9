package api

import "time"

// UsagePeriod names the one period over which node usage is averaged: ten
// minutes, the period Volcano's metrics sources measure and its usage
// plugin reads.
const UsagePeriod = "10m"

// NodeUsage is a node's measured load: the CPU and the memory in use, in
// percent of the node's, averaged over each period measured (by its name,
// such as UsagePeriod), and when they were measured. It follows Volcano's
// api.NodeUsage. A NodeUsage is not changed once a node holds it, so clones
// of the node share it.
type NodeUsage struct {
	MetricsTime    time.Time
	CPUUsageAvg    map[string]float64
	MemoryUsageAvg map[string]float64
}

// NewNodeUsage returns the usage measured at t for UsagePeriod.
func NewNodeUsage(t time.Time, cpu, memory float64) *NodeUsage {
	return &NodeUsage{
		MetricsTime:    t,
		CPUUsageAvg:    map[string]float64{UsagePeriod: cpu},
		MemoryUsageAvg: map[string]float64{UsagePeriod: memory},
	}
}

// SetUsage records the node's measured load (nil: none). Only the usage
// plugin reads it, and its answer depends on the time of the measure as
// well, so a change is no change of Generation: answers remembered per
// Generation concern resources and tasks.
func (n *NodeInfo) SetUsage(u *NodeUsage) { n.Usage = u }
