package api

import (
	"fmt"
	"sort"
	"strings"
)

// FitErrors collects, for one task, why each node was rejected, and renders
// them the way Volcano's scheduler does: "0/5 nodes are unavailable: 3
// Insufficient cpu, 2 node(s) had untolerated taint {k: v}."
type FitErrors struct {
	// nodes counts the nodes recorded; reasons counts, per reason, the
	// nodes rejected for it, in order of first appearance. A search
	// rejects thousands of nodes per task, for a handful of reasons, and
	// most tasks then find a node: recording is a count, not an entry.
	nodes   int
	reasons []reasonCount
	// err is a task-level reason that applies before any node is looked at.
	err string
	// hyperNode names the hypernode the nodes were searched in, for a job
	// with a network topology.
	hyperNode string
}

type reasonCount struct {
	reason string
	n      int
}

// NewFitErrors returns an empty collection.
func NewFitErrors() *FitErrors { return &FitErrors{} }

// SetNodeError records the reasons one node was rejected. Each node is
// recorded at most once per collection (a search looks at a node once).
func (f *FitErrors) SetNodeError(node string, reasons ...string) {
	f.nodes++
	for _, r := range reasons {
		f.count(r)
	}
}

// SetNodeReason is SetNodeError with one reason, without the variadic
// slice.
func (f *FitErrors) SetNodeReason(node, reason string) {
	f.nodes++
	f.count(reason)
}

func (f *FitErrors) count(reason string) {
	for i := range f.reasons {
		if f.reasons[i].reason == reason {
			f.reasons[i].n++
			return
		}
	}
	f.reasons = append(f.reasons, reasonCount{reason, 1})
}

// SetError records a reason that applies to the task as a whole.
func (f *FitErrors) SetError(err string) { f.err = err }

// Error renders the histogram of reasons as Volcano's scheduler does:
// "0/<nodes> nodes are unavailable: <n> <reason>, ...", the counts sorted as
// strings; a task-wide reason stands in for the head, and alone when no
// node was tried.
func (f *FitErrors) Error() string {
	head := f.err
	if head == "" {
		head = fmt.Sprintf("0/%d nodes are unavailable", f.nodes)
	}
	if f.nodes == 0 {
		return head
	}
	parts := make([]string, 0, len(f.reasons))
	for _, rc := range f.reasons {
		parts = append(parts, fmt.Sprintf("%d %s", rc.n, rc.reason))
	}
	sort.Strings(parts)
	if len(parts) > 0 {
		head += ": " + strings.Join(parts, ", ")
	}
	if f.hyperNode != "" {
		return "In hyperNode " + f.hyperNode + ": " + head + "."
	}
	return head + "."
}

// SetHyperNode says the nodes were those of one hypernode.
func (f *FitErrors) SetHyperNode(name string) { f.hyperNode = name }
