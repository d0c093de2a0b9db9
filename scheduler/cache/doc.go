// Package cache keeps the scheduler's picture of the cluster current from
// client-go shared informers (pods, nodes, namespaces, priority classes, and
// Volcano's PodGroups and Queues, and its HyperNodes and Numatopologies where
// the API server serves them), hands each session a Snapshot, and applies
// the session's decisions through the Binder, Evictor and StatusUpdater
// interfaces. A failed bind or eviction puts the pod on a rate-limited resync
// queue and is retried from fresh API state.
//
// Only pods whose schedulerName is one of ours are scheduled, but every pod
// bound to a node counts against that node. A pod of ours without a PodGroup
// is scheduled as a job of its own in the default queue.
package cache
