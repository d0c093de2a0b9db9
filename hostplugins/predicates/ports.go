package predicates

import (
	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// portsTaken reports whether a wanted port is in use by a pod Volcano counts
// on the node (those evicted in this session no longer are).
func (p *Plugin) portsTaken(want []api.HostPort, node *api.NodeInfo) bool {
	for id, t := range node.Tasks {
		if t.Pod == nil {
			continue
		}
		if _, gone := p.evictedHere[id]; gone {
			continue
		}
		for _, used := range api.PodHostPorts(t.Pod) {
			for _, w := range want {
				if w.Conflicts(used) {
					return true
				}
			}
		}
	}
	return false
}
