// Package podrules applies kube-scheduler v1.32's rules that depend on other
// pods, InterPodAffinity and PodTopologySpread, to a session's view: the
// filters and scores of the native predicates and nodeorder plugins
// (scheduler/podrules), over the parsed terms and constraints
// the view carries since ABI 1.4.
//
// An Index counts the pods on each node: the view's tasks placed on one
// and each node's Others. It follows the session's placements through
// Add and Remove (call them from OnAllocate and OnDeallocate) and logs
// them, so that a state built for one task template catches up with the
// pods placed since, instead of being rebuilt for every task.
package podrules
