package runtime

import "github.com/caldera-scheduler/caldera/abi"

// The session view is encoded by hand, object by object, as the cache_event
// request is (eventhandler_wire.go): every Wasm session pays for it once
// (BenchmarkEncodeView, 4,001 objects: 2.2 ms against 8.7 ms with
// reflection). The bytes
// are the ones msgpack/v5 makes of the abi types with sorted map keys:
// fields in declared order, omitempty ones left out when empty, int32 and
// int64 at full width. TestViewObjectsMatchReflection checks them on
// generated views.

func appendNode(b []byte, n *abi.Node) []byte {
	b = appendMapLen(b, 8+countTrue(len(n.Labels) > 0, len(n.Annotations) > 0, len(n.Taints) > 0,
		n.KubeRequested != (abi.KubeRequest{}), len(n.HostPorts) > 0)+nodePodRulesFields(n))
	b = appendStr(appendStr(b, "name"), n.Name)
	b = appendStrMapField(b, "labels", n.Labels)
	b = appendStrMapField(b, "annotations", n.Annotations)
	b = appendTaintsField(b, n.Taints)
	b = appendBool(appendStr(b, "unschedulable"), n.Unschedulable)
	b = appendResourceField(b, "allocatable", &n.Allocatable)
	b = appendResourceField(b, "idle", &n.Idle)
	b = appendResourceField(b, "used", &n.Used)
	b = appendResourceField(b, "releasing", &n.Releasing)
	b = appendResourceField(b, "pipelined", &n.Pipelined)
	b = appendInt32Field(b, "pods", n.Pods)
	b = appendKubeRequestField(b, "kubeRequested", &n.KubeRequested)
	b = appendHostPortsField(b, n.HostPorts)
	return appendNodePodRules(b, n)
}

func appendQueue(b []byte, q *abi.Queue) []byte {
	b = appendMapLen(b, 5+countTrue(len(q.Annotations) > 0, q.Priority != 0, q.Parent != "", q.Deserved != nil, q.Reclaimable != nil))
	b = appendStr(appendStr(b, "name"), q.Name)
	b = appendInt32Field(b, "weight", q.Weight)
	b = appendResourceField(b, "capability", &q.Capability)
	b = appendResourceField(b, "guarantee", &q.Guarantee)
	b = appendStr(appendStr(b, "state"), q.State)
	b = appendStrMapField(b, "annotations", q.Annotations)
	if q.Priority != 0 {
		b = appendInt32Field(b, "priority", q.Priority)
	}
	if q.Parent != "" {
		b = appendStrField(b, "parent", q.Parent)
	}
	if q.Deserved != nil {
		b = appendResourceField(b, "deserved", q.Deserved)
	}
	if q.Reclaimable != nil {
		b = appendBool(appendStr(b, "reclaimable"), *q.Reclaimable)
	}
	return b
}

func appendJob(b []byte, j *abi.Job) []byte {
	b = appendMapLen(b, 8+countTrue(len(j.Labels) > 0, len(j.Annotations) > 0, len(j.MinTaskMember) > 0,
		j.NetworkTopology != nil, j.AllocatedHyperNode != nil))
	b = appendStr(appendStr(b, "namespace"), j.Namespace)
	b = appendStr(appendStr(b, "name"), j.Name)
	b = appendInt32Field(b, "queue", j.Queue)
	b = appendInt32Field(b, "priority", j.Priority)
	b = appendInt32Field(b, "minAvailable", j.MinAvailable)
	b = appendResourceField(b, "minResources", &j.MinResources)
	b = appendStr(appendStr(b, "phase"), j.Phase)
	b = appendStrMapField(b, "labels", j.Labels)
	b = appendStrMapField(b, "annotations", j.Annotations)
	b = appendInt64(appendStr(b, "creationTime"), j.CreationTime)
	if len(j.MinTaskMember) > 0 {
		b = appendStr(b, "minTaskMember")
		b = appendMapLen(b, len(j.MinTaskMember))
		var buf [8]string
		for _, k := range sortedKeys(j.MinTaskMember, buf[:0]) {
			b = appendInt32(appendStr(b, k), j.MinTaskMember[k])
		}
	}
	return appendJobTopology(b, j)
}

func appendTask(b []byte, t *abi.Task) []byte {
	b = appendMapLen(b, 11+countTrue(len(t.Labels) > 0, len(t.Annotations) > 0, len(t.NodeSelector) > 0,
		len(t.Tolerations) > 0, t.PriorityClassName != "", t.BestEffort, t.NodeAffinity != nil,
		len(t.HostPorts) > 0, t.KubeRequest != (abi.KubeRequest{}))+taskPodRulesFields(t))
	b = appendStr(appendStr(b, "namespace"), t.Namespace)
	b = appendStr(appendStr(b, "name"), t.Name)
	b = appendInt32Field(b, "job", t.Job)
	b = appendStr(appendStr(b, "status"), t.Status)
	b = appendInt32Field(b, "node", t.Node)
	b = appendInt32Field(b, "priority", t.Priority)
	b = appendResourceField(b, "request", &t.Request)
	b = appendResourceField(b, "initRequest", &t.InitRequest)
	b = appendStrMapField(b, "labels", t.Labels)
	b = appendStrMapField(b, "annotations", t.Annotations)
	b = appendStrMapField(b, "nodeSelector", t.NodeSelector)
	if len(t.Tolerations) > 0 {
		b = appendStr(b, "tolerations")
		b = appendArrayLen(b, len(t.Tolerations))
		for _, tol := range t.Tolerations {
			b = appendMapLen(b, 4)
			b = appendStr(appendStr(b, "key"), tol.Key)
			b = appendStr(appendStr(b, "operator"), tol.Operator)
			b = appendStr(appendStr(b, "value"), tol.Value)
			b = appendStr(appendStr(b, "effect"), tol.Effect)
		}
	}
	b = appendBool(appendStr(b, "preemptable"), t.Preemptable)
	b = appendStr(appendStr(b, "role"), t.Role)
	b = appendInt64(appendStr(b, "creationTime"), t.CreationTime)
	b = appendStrField(b, "priorityClassName", t.PriorityClassName)
	if t.BestEffort {
		b = appendBool(appendStr(b, "bestEffort"), true)
	}
	if t.NodeAffinity != nil {
		b = appendNodeAffinity(appendStr(b, "nodeAffinity"), t.NodeAffinity)
	}
	b = appendHostPortsField(b, t.HostPorts)
	b = appendKubeRequestField(b, "kubeRequest", &t.KubeRequest)
	return appendTaskPodRules(b, t)
}

func appendNodeAffinity(b []byte, a *abi.NodeAffinity) []byte {
	b = appendMapLen(b, countTrue(a.Required != nil, len(a.Preferred) > 0))
	if a.Required != nil {
		b = appendStr(b, "required")
		b = appendMapLen(b, 1)
		b = appendStr(b, "terms")
		if a.Required.Terms == nil {
			b = appendNil(b)
		} else {
			b = appendArrayLen(b, len(a.Required.Terms))
		}
		for i := range a.Required.Terms {
			b = appendTerm(b, &a.Required.Terms[i])
		}
	}
	if len(a.Preferred) > 0 {
		b = appendStr(b, "preferred")
		b = appendArrayLen(b, len(a.Preferred))
		for i := range a.Preferred {
			p := &a.Preferred[i]
			b = appendMapLen(b, 2)
			b = appendInt32Field(b, "weight", p.Weight)
			b = appendTerm(appendStr(b, "term"), &p.Term)
		}
	}
	return b
}

func appendTerm(b []byte, t *abi.NodeSelectorTerm) []byte {
	b = appendMapLen(b, countTrue(len(t.MatchExpressions) > 0, len(t.MatchFields) > 0, t.Invalid))
	b = appendRequirements(b, "matchExpressions", t.MatchExpressions)
	b = appendRequirements(b, "matchFields", t.MatchFields)
	if t.Invalid {
		b = appendBool(appendStr(b, "invalid"), true)
	}
	return b
}

func appendRequirements(b []byte, key string, rs []abi.NodeSelectorRequirement) []byte {
	if len(rs) == 0 {
		return b
	}
	b = appendArrayLen(appendStr(b, key), len(rs))
	for _, r := range rs {
		b = appendRequirement(b, r)
	}
	return b
}

func appendRequirement(b []byte, r abi.NodeSelectorRequirement) []byte {
	b = appendMapLen(b, 2+countTrue(len(r.Values) > 0))
	b = appendStr(appendStr(b, "key"), r.Key)
	b = appendStr(appendStr(b, "operator"), r.Operator)
	return appendStrsField(b, "values", r.Values)
}

func appendHostPortsField(b []byte, ports []abi.HostPort) []byte {
	if len(ports) == 0 {
		return b
	}
	b = appendArrayLen(appendStr(b, "hostPorts"), len(ports))
	for _, p := range ports {
		b = appendMapLen(b, 3)
		b = appendStr(appendStr(b, "ip"), p.IP)
		b = appendInt32Field(b, "port", p.Port)
		b = appendStr(appendStr(b, "protocol"), p.Protocol)
	}
	return b
}

// appendKubeRequestField writes a KubeRequest, itself omitempty, whose
// fields are each omitempty.
func appendKubeRequestField(b []byte, key string, r *abi.KubeRequest) []byte {
	if *r == (abi.KubeRequest{}) {
		return b
	}
	b = appendStr(b, key)
	b = appendMapLen(b, countTrue(r.MilliCPU != 0, r.Memory != 0, r.GPU != 0, r.NonZeroMilliCPU != 0, r.NonZeroMemory != 0))
	for _, f := range [...]struct {
		key string
		v   int64
	}{{"cpu", r.MilliCPU}, {"memory", r.Memory}, {"gpu", r.GPU}, {"nonZeroCpu", r.NonZeroMilliCPU}, {"nonZeroMemory", r.NonZeroMemory}} {
		if f.v != 0 {
			b = appendInt64(appendStr(b, f.key), f.v)
		}
	}
	return b
}
