package runtime

import (
	"sort"

	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// handles maps the session's objects to the handles the guest knows.
type handles struct {
	tasks map[api.TaskID]int32
	nodes map[string]int32
}

func wireResource(r *api.Resource) abi.Resource {
	if r == nil {
		return abi.Resource{}
	}
	out := abi.Resource{MilliCPU: int64(r.MilliCPU), Memory: int64(r.Memory)}
	if len(r.Scalars) > 0 {
		out.Scalars = make(map[string]int64, len(r.Scalars))
		for k, v := range r.Scalars {
			out.Scalars[string(k)] = int64(v)
		}
	}
	return out
}

// buildView copies what a guest needs of the session, once per session.
// Nodes keep the session's order (handle = NodeInfo.Index), jobs follow
// Session.JobList, queues are by name, and tasks follow their jobs.
func buildView(ssn *framework.Session) (abi.View, handles) {
	h := handles{tasks: map[api.TaskID]int32{}, nodes: make(map[string]int32, len(ssn.NodeList))}
	var v abi.View
	for i, n := range ssn.NodeList {
		h.nodes[n.Name] = int32(i)
		wn := abi.Node{
			Name: n.Name, Allocatable: wireResource(n.Allocatable), Idle: wireResource(n.Idle),
			Used: wireResource(n.Used), Releasing: wireResource(n.Releasing), Pipelined: wireResource(n.Pipelined),
			Pods: int32(len(n.Tasks)),
		}
		if n.Node != nil {
			wn.Labels, wn.Annotations, wn.Unschedulable = n.Node.Labels, n.Node.Annotations, n.Node.Spec.Unschedulable
			for _, t := range n.Node.Spec.Taints {
				wn.Taints = append(wn.Taints, abi.Taint{Key: t.Key, Value: t.Value, Effect: string(t.Effect)})
			}
		}
		v.Nodes = append(v.Nodes, wn)
	}
	queueIdx := map[api.QueueID]int32{}
	var queues []*api.QueueInfo
	for _, q := range ssn.Queues {
		queues = append(queues, q)
	}
	sort.Slice(queues, func(i, j int) bool { return queues[i].Name < queues[j].Name })
	for i, q := range queues {
		queueIdx[q.UID] = int32(i)
		wq := abi.Queue{Name: q.Name, Weight: q.Weight}
		if q.Queue != nil {
			wq.Capability = wireResource(api.NewResource(q.Queue.Spec.Capability))
			wq.Guarantee = wireResource(api.NewResource(q.Queue.Spec.Guarantee.Resource))
			wq.State, wq.Annotations = string(q.Queue.Status.State), q.Queue.Annotations
		}
		v.Queues = append(v.Queues, wq)
	}
	for ji, j := range ssn.JobList {
		wj := abi.Job{Namespace: j.Namespace, Name: j.Name, Queue: -1, Priority: j.Priority,
			MinAvailable: j.MinAvailable, CreationTime: j.CreationTimestamp.UnixMilli()}
		if qi, ok := queueIdx[j.Queue]; ok {
			wj.Queue = qi
		}
		if pg := j.PodGroup; pg != nil {
			wj.Phase, wj.Labels, wj.Annotations = string(pg.Status.Phase), pg.Labels, pg.Annotations
			if pg.Spec.MinResources != nil {
				wj.MinResources = wireResource(api.NewResource(*pg.Spec.MinResources))
			}
		}
		v.Jobs = append(v.Jobs, wj)
		ids := make([]api.TaskID, 0, len(j.Tasks))
		for id := range j.Tasks {
			ids = append(ids, id)
		}
		sort.Slice(ids, func(a, b int) bool { return ids[a] < ids[b] })
		for _, id := range ids {
			t := j.Tasks[id]
			h.tasks[id] = int32(len(v.Tasks))
			v.Tasks = append(v.Tasks, wireTask(t, int32(ji), h))
		}
	}
	return v, h
}

func wireTask(t *api.TaskInfo, job int32, h handles) abi.Task {
	wt := abi.Task{Namespace: t.Namespace, Name: t.Name, Job: job, Status: t.Status.String(), Node: -1,
		Priority: t.Priority, Request: wireResource(t.Resreq), InitRequest: wireResource(t.InitResreq),
		Preemptable: t.Preemptable, Role: t.TaskRole}
	if n, ok := h.nodes[t.NodeName]; ok && t.NodeName != "" {
		wt.Node = n
	}
	if p := t.Pod; p != nil {
		wt.Labels, wt.Annotations, wt.NodeSelector = p.Labels, p.Annotations, p.Spec.NodeSelector
		wt.CreationTime = p.CreationTimestamp.UnixMilli()
		for _, tol := range p.Spec.Tolerations {
			wt.Tolerations = append(wt.Tolerations, abi.Toleration{Key: tol.Key, Operator: string(tol.Operator), Value: tol.Value, Effect: string(tol.Effect)})
		}
	}
	return wt
}
