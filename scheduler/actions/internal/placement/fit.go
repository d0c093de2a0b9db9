package placement

import (
	"math"
	"sort"

	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// tolerance is api's: two quantities closer than this are equal, so that an
// exact fit computed in floats is still a fit.
const tolerance = 0.1

func fits(req, avail float64) bool { return req < avail || math.Abs(avail-req) < tolerance }

// Request is a task's resource request laid out for fit checks against many
// nodes: the same answers as api.Resource.LessEqual (missing dimensions
// count as zero) without walking a map per node.
type Request struct {
	res     *api.Resource
	scalars []scalar
}

type scalar struct {
	name v1.ResourceName
	q    float64
}

// NewRequest prepares req for fit checks.
func NewRequest(req *api.Resource) Request {
	r := Request{res: req}
	for name, q := range req.Scalars {
		r.scalars = append(r.scalars, scalar{name, q})
	}
	// A stable order, so that the first lacking dimension is reproducible.
	sort.Slice(r.scalars, func(i, j int) bool { return r.scalars[i].name < r.scalars[j].name })
	return r
}

// FitsIdle reports whether the request fits the node's idle resources.
func (r Request) FitsIdle(node *api.NodeInfo) bool {
	idle := node.Idle
	if !fits(r.res.MilliCPU, idle.MilliCPU) || !fits(r.res.Memory, idle.Memory) {
		return false
	}
	for _, s := range r.scalars {
		if !fits(s.q, idle.Scalars[s.name]) {
			return false
		}
	}
	return true
}

// FitsFutureIdle reports whether the request fits what the node will have
// once releasing tasks are gone and pipelined tasks have taken theirs
// (NodeInfo.FutureIdle), without building that resource.
func (r Request) FitsFutureIdle(node *api.NodeInfo) bool { return r.shortfall(node) == "" }

// Shortfall returns Volcano's reason when the request does not fit the
// node's future idle resources ("Insufficient cpu"), or "".
func (r Request) Shortfall(node *api.NodeInfo) string {
	if d := r.shortfall(node); d != "" {
		return "Insufficient " + d
	}
	return ""
}

func (r Request) shortfall(node *api.NodeInfo) string {
	idle, rel, pipe := node.Idle, node.Releasing, node.Pipelined
	if !fits(r.res.MilliCPU, idle.MilliCPU+rel.MilliCPU-pipe.MilliCPU) {
		return string(v1.ResourceCPU)
	}
	if !fits(r.res.Memory, idle.Memory+rel.Memory-pipe.Memory) {
		return string(v1.ResourceMemory)
	}
	for _, s := range r.scalars {
		if !fits(s.q, idle.Scalars[s.name]+rel.Scalars[s.name]-pipe.Scalars[s.name]) {
			return string(s.name)
		}
	}
	return ""
}

// FitsFutureIdle is NewRequest(req).FitsFutureIdle(node), for one-off checks.
func FitsFutureIdle(req *api.Resource, node *api.NodeInfo) bool {
	return NewRequest(req).FitsFutureIdle(node)
}

// Gated reports whether the task's pod still waits on scheduling gates;
// no action places such a task.
func Gated(task *api.TaskInfo) bool { return task.Pod != nil && len(task.Pod.Spec.SchedulingGates) > 0 }
