package cache

import (
	"k8s.io/klog/v2"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// SetNodeUsage records measured node loads by node name (a nil value
// clears a node's). Nodes left out keep what they had, so that the last
// good measure stays, with its time, when a source fails for some nodes;
// the usage plugin judges by that time whether it is still fresh. A name
// the cache does not hold is skipped: a node that comes later gets its
// usage from the next measure.
func (c *Cache) SetNodeUsage(usage map[string]*api.NodeUsage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for name, u := range usage {
		n, ok := c.nodes[name]
		if !ok || n.Node == nil {
			klog.V(4).InfoS("Node usage for a node the cache does not hold", "node", name)
			continue
		}
		n.SetUsage(u)
	}
}

// NodeNames returns, sorted, the names of the nodes the cache holds a Node
// object for: those a metrics source is asked about.
func (c *Cache) NodeNames() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, len(c.nodes))
	for _, name := range c.sortedNodeNames() {
		if c.nodes[name].Node != nil {
			out = append(out, name)
		}
	}
	return out
}
