// Command conformance is the Wasm port of Caldera's native conformance
// plugin (Volcano's conformance): preemption and reclaim never take a pod
// that the cluster cannot run without, that is a pod in kube-system or one
// whose priority class is system-cluster-critical or system-node-critical.
// It always votes, so a candidate list made only of such pods vetoes
// eviction in its tier.
package main

import caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"

func main() {}

func init() { caldera.Register(&conformance{}) }

// The namespace and the built-in priority classes of the pods that keep a
// cluster or a node alive.
const (
	namespaceSystem       = "kube-system"
	systemClusterCritical = "system-cluster-critical"
	systemNodeCritical    = "system-node-critical"
)

// conformance keeps the victims of the last call: the SDK encodes them
// before the next call, so one slice serves every call.
type conformance struct {
	victims []*caldera.Task
}

func (*conformance) Name() string { return "conformance" }

// Preemptable allows every candidate that is not critical.
func (c *conformance) Preemptable(_ *caldera.Session, _ *caldera.Task, candidates []*caldera.Task) ([]*caldera.Task, bool) {
	return c.evictable(candidates), true
}

// Reclaimable allows every candidate that is not critical.
func (c *conformance) Reclaimable(_ *caldera.Session, _ *caldera.Task, candidates []*caldera.Task) ([]*caldera.Task, bool) {
	return c.evictable(candidates), true
}

// Evictable allows every gang eviction candidate that is not critical.
func (c *conformance) Evictable(_ *caldera.Session, _ caldera.EvictionContext, candidates []*caldera.Task) ([]*caldera.Task, bool) {
	return c.evictable(candidates), true
}

func (c *conformance) evictable(candidates []*caldera.Task) []*caldera.Task {
	c.victims = c.victims[:0]
	for _, t := range candidates {
		if !critical(t) {
			c.victims = append(c.victims, t)
		}
	}
	return c.victims
}

func critical(t *caldera.Task) bool {
	if t.Namespace == namespaceSystem {
		return true
	}
	return t.PriorityClassName == systemClusterCritical || t.PriorityClassName == systemNodeCritical
}
