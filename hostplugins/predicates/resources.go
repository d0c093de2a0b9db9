package predicates

import (
	"math"
	"sort"

	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// minResource is Volcano's tolerance for comparing quantities.
const minResource = 0.1

func fits(req, avail float64) bool { return req < avail || math.Abs(req-avail) < minResource }

// scalarRequest is one scalar dimension of a request.
type scalarRequest struct {
	name     v1.ResourceName
	quantity float64
}

// scalarRequests lists a request's scalar dimensions in name order, so that
// the hot path neither iterates a map nor depends on its order.
func scalarRequests(r *api.Resource) []scalarRequest {
	out := make([]scalarRequest, 0, len(r.Scalars))
	for n, q := range r.Scalars {
		out = append(out, scalarRequest{n, q})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// insufficient reports the first dimension in which req exceeds the node's
// future idle (idle + releasing - pipelined), in the order cpu, memory, then
// scalar names sorted; a scalar the node lacks counts as zero. It gives the
// answer of req.LessEqual(node.FutureIdle(), api.Zero) without building the
// future idle resource.
func insufficient(req *api.Resource, scalars []scalarRequest, node *api.NodeInfo) (string, bool) {
	idle, rel, pip := node.Idle, node.Releasing, node.Pipelined
	if !fits(req.MilliCPU, idle.MilliCPU+rel.MilliCPU-pip.MilliCPU) {
		return string(v1.ResourceCPU), true
	}
	if !fits(req.Memory, idle.Memory+rel.Memory-pip.Memory) {
		return string(v1.ResourceMemory), true
	}
	// FutureIdle subtracts pipelined scalars only when idle or releasing has
	// scalars at all.
	subPipelined := idle.Scalars != nil || len(rel.Scalars) > 0
	for _, sr := range scalars {
		avail := idle.Scalars[sr.name] + rel.Scalars[sr.name]
		if subPipelined {
			avail -= pip.Scalars[sr.name]
		}
		if !fits(sr.quantity, avail) {
			return string(sr.name), true
		}
	}
	return "", false
}
