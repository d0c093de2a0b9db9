package resutil

import (
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// queueAllocationGate is Volcano's own scheduling gate, held on a pod until its
// queue has room. Such a pod is waiting for admission, not blocked by a user,
// so its resources stay reserved.
const queueAllocationGate = "scheduling.volcano.sh/queue-allocation-gate"

// HasMinResources reports whether the job's PodGroup states spec.minResources;
// admission ignores jobs that do not.
func HasMinResources(job *api.JobInfo) bool {
	return job.PodGroup != nil && job.PodGroup.Spec.MinResources != nil
}

// AllocatedTaskNum counts the job's tasks that hold node resources.
func AllocatedTaskNum(job *api.JobInfo) int32 {
	n := 0
	for s, ts := range job.TaskStatusIndex {
		if api.AllocatedStatus(s) {
			n += len(ts)
		}
	}
	return int32(n)
}

// gated reports whether a user (or a controller other than Volcano's queue
// admission) holds the pod back with scheduling gates.
func gated(t *api.TaskInfo) bool {
	if t.Pod == nil || len(t.Pod.Spec.SchedulingGates) == 0 {
		return false
	}
	only := len(t.Pod.Spec.SchedulingGates) == 1 && t.Pod.Spec.SchedulingGates[0].Name == queueAllocationGate
	return !only
}

// WithoutGated returns res less what the job's gated pods request, never
// below zero in any dimension res has. A job whose pods are held back by
// scheduling gates should not keep other jobs out of the queue with a
// reservation it cannot use yet. res itself is returned when nothing is gated.
func WithoutGated(job *api.JobInfo, res *api.Resource) *api.Resource {
	held := api.EmptyResource()
	for _, t := range job.Tasks {
		if gated(t) {
			held.Add(t.Resreq)
		}
	}
	if held.IsEmpty() {
		return res
	}
	out := res.Clone()
	out.MilliCPU = max(out.MilliCPU-held.MilliCPU, 0)
	out.Memory = max(out.Memory-held.Memory, 0)
	for n, q := range res.Scalars {
		if h, ok := held.Scalars[n]; ok {
			out.Scalars[n] = max(q-h, 0)
		}
	}
	return out
}

// UnmetMinResources returns the part of the job's spec.minResources that its
// allocated resources do not cover yet: what an admitted job still has a
// claim on. Only the dimensions minResources names count; quota-style
// "count/..." names and resources that are not schedulable scalars are
// skipped. A scalar dimension that nothing allocated reserves all of its
// minimum. The job must have minResources.
func UnmetMinResources(job *api.JobInfo, allocated *api.Resource) *api.Resource {
	spec := *job.PodGroup.Spec.MinResources
	need := api.NewResource(spec)
	out := &api.Resource{}
	for name := range spec {
		switch name {
		case v1.ResourceCPU:
			if d := need.MilliCPU - allocated.MilliCPU; d > 0 {
				out.MilliCPU = d
			}
		case v1.ResourceMemory:
			if d := need.Memory - allocated.Memory; d > 0 {
				out.Memory = d
			}
		case v1.ResourcePods:
			if d := need.Scalars[name] - allocated.Scalars[name]; d > 0 {
				out.SetScalar(name, d)
			}
		default:
			if strings.HasPrefix(string(name), "count/") || name == v1.ResourceEphemeralStorage {
				continue
			}
			want, scalar := need.Scalars[name]
			if !scalar {
				continue
			}
			if out.Scalars == nil {
				out.Scalars = map[v1.ResourceName]float64{}
			}
			got, ok := allocated.Scalars[name]
			if !ok {
				out.Scalars[name] = want
			} else if d := want - got; d > 0 {
				out.Scalars[name] = d
			}
		}
	}
	return out
}
