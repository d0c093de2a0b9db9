package nodeorder

import (
	"sync"

	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// kube-scheduler's ImageLocality thresholds.
const (
	mb                    int64 = 1024 * 1024
	minImageThreshold     int64 = 23 * mb
	maxContainerThreshold int64 = 1000 * mb
)

// imageStates is what ImageLocality reads of the session's nodes: per node,
// the size of each image name it reports, and on how many session nodes
// each name is present. Built on the first pod scored.
type imageStates struct {
	once    sync.Once
	perNode []map[string]int64
	spread  map[string]int
	none    bool // no node reports any image
}

func (s *imageStates) build(nodes []*api.NodeInfo) {
	s.once.Do(func() {
		s.perNode = make([]map[string]int64, len(nodes))
		s.spread = map[string]int{}
		s.none = true
		for i, n := range nodes {
			if n.Node == nil || len(n.Node.Status.Images) == 0 {
				continue
			}
			s.none = false
			m := map[string]int64{}
			for _, img := range n.Node.Status.Images {
				for _, name := range img.Names {
					if _, dup := m[name]; !dup {
						s.spread[name]++
					}
					m[name] = img.SizeBytes
				}
			}
			s.perNode[i] = m
		}
	})
}

// imageScore is ImageLocality's score (0..100) for a pod on the node at
// position i: the sizes of the pod's images present there, each scaled by
// the share of nodes that have it, clamped to [23 MB, 1000 MB per container]
// and scaled to 0..100.
func (s *imageStates) score(pod *v1.Pod, i, totalNodes int) int64 {
	var images map[string]int64
	if i >= 0 && i < len(s.perNode) {
		images = s.perNode[i]
	}
	var sum int64
	add := func(cs []v1.Container) {
		for k := range cs {
			name := api.NormalizedImageName(cs[k].Image)
			if size, ok := images[name]; ok {
				sum += int64(float64(size) * (float64(s.spread[name]) / float64(totalNodes)))
			}
		}
	}
	if images != nil {
		add(pod.Spec.InitContainers)
		add(pod.Spec.Containers)
	}
	maxThreshold := maxContainerThreshold * int64(len(pod.Spec.InitContainers)+len(pod.Spec.Containers))
	sum = max(min(sum, maxThreshold), minImageThreshold)
	return maxNodeScore * (sum - minImageThreshold) / (maxThreshold - minImageThreshold)
}
