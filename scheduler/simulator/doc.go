// Package simulator runs the real scheduler loop — informers, cache, session,
// actions, binder — against an embedded in-memory cluster built from ordinary
// Kubernetes manifests (client-go's and volcano.sh/apis's fake clientsets).
// Between sessions it plays the kubelet: bound pods start running and
// evicted pods are gone. It asks no metrics source: a node's usage, which
// the usage plugin reads, is its caldera.sh/node-usage annotation.
package simulator
