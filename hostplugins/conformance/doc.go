// Package conformance is the native "conformance" plugin: it keeps
// preemption and reclaim away from the pods a cluster cannot run without.
//
// It follows Volcano v1.15's plugin of the same name. Its Preemptable and
// Reclaimable hooks drop every candidate whose priority class is
// system-cluster-critical or system-node-critical, or which runs in the
// kube-system namespace, and allow the rest. The plugin always votes, so a
// list made only of such pods vetoes eviction in its tier.
//
// The plugin takes no arguments; any given are ignored, as Volcano ignores
// them. Left out: the unified gang-eviction hook, which our actions do not
// call.
package conformance
