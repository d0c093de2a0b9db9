package api

import (
	"fmt"
	"sort"
	"strings"
)

// FitErrors collects, for one task, why each node was rejected, and renders
// them the way kube-scheduler does: "0/5 nodes are available: 3 Insufficient
// cpu, 2 node(s) had untolerated taint {k: v}."
type FitErrors struct {
	nodes map[string][]string
	// err is a task-level reason that applies before any node is looked at.
	err string
}

// NewFitErrors returns an empty collection.
func NewFitErrors() *FitErrors { return &FitErrors{nodes: map[string][]string{}} }

// SetNodeError records the reasons one node was rejected.
func (f *FitErrors) SetNodeError(node string, reasons ...string) { f.nodes[node] = reasons }

// SetError records a reason that applies to the task as a whole.
func (f *FitErrors) SetError(err string) { f.err = err }

// Error renders the histogram of reasons.
func (f *FitErrors) Error() string {
	if f.err != "" && len(f.nodes) == 0 {
		return f.err
	}
	counts := map[string]int{}
	for _, reasons := range f.nodes {
		for _, r := range reasons {
			counts[r]++
		}
	}
	parts := make([]string, 0, len(counts))
	for r, n := range counts {
		parts = append(parts, fmt.Sprintf("%d %s", n, r))
	}
	sort.Strings(parts)
	msg := fmt.Sprintf("0/%d nodes are available", len(f.nodes))
	if len(parts) > 0 {
		msg += ": " + strings.Join(parts, ", ")
	}
	if f.err != "" {
		msg = f.err + "; " + msg
	}
	return msg + "."
}
