// Package handler is the example extender's HTTP side: a label-based
// predicate and a binpack prioritize, answering Caldera's extender plugin
// and Volcano's alike. It decodes the requests into its own small types,
// reading only the fields it needs, as an extender in any language would;
// it imports nothing from Caldera or Volcano.
package handler

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// Options configure the policy.
type Options struct {
	// AvoidKey and AvoidValue name the label that makes the predicate reject
	// a node. An empty key rejects nothing.
	AvoidKey, AvoidValue string
}

// New returns the extender's handler. Its verbs: predicate,
// batchPredicate, prioritize, and onSessionOpen and onSessionClose, which
// it accepts and ignores.
func New(opts Options) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /predicate", serve(func(req *predicateRequest) any {
		return opts.verdict(&req.Node)
	}))
	mux.HandleFunc("POST /batchPredicate", serve(func(req *nodesRequest) any {
		// Only rejected nodes are listed: the others pass.
		out := batchPredicateResponse{NodeStatus: map[string]predicateResponse{}}
		for i := range req.Nodes {
			if v := opts.verdict(&req.Nodes[i]); v.Status != "" {
				out.NodeStatus[req.Nodes[i].Name] = v
			}
		}
		return out
	}))
	mux.HandleFunc("POST /prioritize", serve(func(req *nodesRequest) any {
		out := prioritizeResponse{NodeScore: make(map[string]float64, len(req.Nodes))}
		for i := range req.Nodes {
			n := &req.Nodes[i]
			out.NodeScore[n.Name] = binpackScore(&req.Task.Resreq, &n.Allocatable, &n.Used)
		}
		return out
	}))
	// The session calls need no answer; the policy keeps no state.
	mux.HandleFunc("POST /onSessionOpen", func(http.ResponseWriter, *http.Request) {})
	mux.HandleFunc("POST /onSessionClose", func(http.ResponseWriter, *http.Request) {})
	return mux
}

// serve decodes a request of type R, and encodes what answer returns.
func serve[R any](answer func(*R) any) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var req R
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, "decoding the request: "+err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if err := json.NewEncoder(w).Encode(answer(&req)); err != nil {
			// The status line is gone already; the scheduler sees a cut answer.
			return
		}
	}
}

// verdict rejects a node that carries the avoided label, with code 3
// (UnschedulableAndUnresolvable): evicting pods there would not help.
func (o Options) verdict(n *node) predicateResponse {
	if o.AvoidKey == "" || n.Node == nil {
		return predicateResponse{}
	}
	if v, ok := n.Node.Metadata.Labels[o.AvoidKey]; ok && v == o.AvoidValue {
		return predicateResponse{Status: fmt.Sprintf("node has label %s=%s", o.AvoidKey, v), Code: 3}
	}
	return predicateResponse{}
}

// minQuantity is the amount under which a request counts as absent.
const minQuantity = 0.1

// binpackScore is binpack's score with its default weights (cpu 1, memory 1,
// plugin weight 1, no extended resources): 100 times the mean, over the
// dimensions the task requests, of the share of the node in use once the
// task is placed; 0 if the task would overflow a dimension. The arithmetic
// is done in the same order as Caldera's native binpack, so that the two
// produce the same floats and pick the same nodes.
func binpackScore(req, allocatable, used *resource) float64 {
	sum, weights := 0.0, 0.0
	for _, d := range [][3]float64{
		{req.MilliCPU, allocatable.MilliCPU, used.MilliCPU},
		{req.Memory, allocatable.Memory, used.Memory},
	} {
		request, capacity, inUse := d[0], d[1], d[2]
		if request < minQuantity {
			continue
		}
		weights++
		if capacity == 0 {
			continue
		}
		after := request + inUse
		if after > capacity {
			return 0
		}
		sum += after * 1 / capacity
	}
	if weights > 0 {
		sum /= weights
	}
	return sum * 100
}
