// Package placement holds what every action does to put a task on a node:
// the bounded, round-robin search for feasible nodes (Volcano's
// PredicateNodes with kube-scheduler's feasible-node count), scoring and
// picking the best of them, and resource fit checks that allocate nothing.
package placement
