// Package shared holds what the actions of one scheduler share across
// sessions. Volcano keeps it in process-wide variables; here the action
// registry makes one value and hands it to every action factory it builds.
package shared

import "sync/atomic"

// NodeSearch is how many feasible nodes a search looks for, before the
// actions' own arguments: vc-scheduler's --minimum-feasible-nodes,
// --minimum-percentage-nodes-to-find and --percentage-nodes-to-find.
type NodeSearch struct {
	MinNodesToFind             int
	MinPercentageOfNodesToFind int
	PercentageOfNodesToFind    int
}

// DefaultNodeSearch is Volcano's: 100 nodes, 5 percent, adaptive.
func DefaultNodeSearch() NodeSearch {
	return NodeSearch{MinNodesToFind: 100, MinPercentageOfNodesToFind: 5}
}

// State is shared by every action made from one registry.
type State struct {
	// Search is the node search the actions' arguments start from.
	Search NodeSearch

	// nextNode is where the next feasible-node search starts in the session's
	// node list, so that every node gets its turn across tasks and sessions.
	nextNode atomic.Int64
}

// New returns a fresh state with Volcano's node search.
func New() *State { return &State{Search: DefaultNodeSearch()} }

// NextNode returns where the next node search starts, for n nodes.
func (s *State) NextNode(n int) int {
	if n == 0 {
		return 0
	}
	return int(s.nextNode.Load() % int64(n))
}

// SetNextNode records where the following search starts.
func (s *State) SetNextNode(i int) { s.nextNode.Store(int64(i)) }
