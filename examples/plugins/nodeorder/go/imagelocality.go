package main

import caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"

// kube-scheduler's ImageLocality thresholds.
const (
	mb                    int64 = 1024 * 1024
	minImageThreshold     int64 = 23 * mb
	maxContainerThreshold int64 = 1000 * mb
)

// images is what ImageLocality reads of the session's nodes: per node, the
// size of each image name it reports, and on how many nodes each name is.
// Built on the first task scored, as the native plugin does.
type images struct {
	built   bool
	perNode []map[string]int64
	spread  map[string]int
	none    bool // no node reports any image
}

func (s *images) build(nodes []caldera.Node) {
	if s.built {
		return
	}
	s.built, s.none = true, true
	s.perNode = make([]map[string]int64, len(nodes))
	s.spread = map[string]int{}
	for i := range nodes {
		if len(nodes[i].Images) == 0 {
			continue
		}
		s.none = false
		m := map[string]int64{}
		for _, img := range nodes[i].Images {
			for _, name := range img.Names {
				if _, dup := m[name]; !dup {
					s.spread[name]++
				}
				m[name] = img.Size
			}
		}
		s.perNode[i] = m
	}
}

// score is ImageLocality's score (0..100) for a task on a node: the sizes
// of its images present there, each scaled by the share of nodes that have
// it, clamped to [23 MB, 1000 MB per container] and scaled to 0..100.
func (s *images) score(task *caldera.Task, node int32) int64 {
	var sum int64
	if here := s.perNode[node]; here != nil {
		total := float64(len(s.perNode))
		for _, name := range task.Images {
			if size, ok := here[name]; ok {
				sum += int64(float64(size) * (float64(s.spread[name]) / total))
			}
		}
	}
	maxThreshold := maxContainerThreshold * int64(len(task.Images))
	sum = max(min(sum, maxThreshold), minImageThreshold)
	return maxNodeScore * (sum - minImageThreshold) / (maxThreshold - minImageThreshold)
}
