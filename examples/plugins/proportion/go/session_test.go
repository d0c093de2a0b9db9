package main

import caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"

// session indexes a hand-built view the way the SDK does when it arrives:
// handles, and each job's tasks in handle order.
func session(v caldera.View) *caldera.Session {
	s := &caldera.Session{View: v, Arguments: map[string]any{}}
	for i := range s.View.Nodes {
		s.View.Nodes[i].Handle = int32(i)
	}
	for i := range s.View.Queues {
		s.View.Queues[i].Handle = int32(i)
	}
	for i := range s.View.Jobs {
		s.View.Jobs[i].Handle = int32(i)
	}
	for i := range s.View.Tasks {
		t := &s.View.Tasks[i]
		t.Handle = int32(i)
		j := &s.View.Jobs[t.Job]
		j.Tasks = append(j.Tasks, t)
	}
	return s
}

// task returns a task of job on node (-1 for none) with a request of cpu
// milli-CPU, memory bytes and one pod slot.
func task(job int32, status string, node int32, cpu, memory int64) caldera.Task {
	return caldera.Task{Namespace: "ns", Job: job, Status: status, Node: node,
		Request: caldera.Resource{MilliCPU: cpu, Memory: memory, Scalars: map[string]int64{"pods": 1}}}
}
