package main

import caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"

// task returns a task of job on node (-1 for none) with a request of cpu
// milli-CPU, memory bytes and one pod slot.
func task(job int32, status string, node int32, cpu, memory int64) caldera.Task {
	return caldera.Task{Namespace: "ns", Job: job, Status: status, Node: node,
		Request: caldera.Resource{MilliCPU: cpu, Memory: memory, Scalars: caldera.ScalarsOf(map[string]int64{"pods": 1})}}
}
