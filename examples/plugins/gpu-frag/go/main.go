// Command gpu-frag is a scheduling policy no native plugin offers: it
// scores nodes so that GPUs are not stranded. A task that asks for GPUs
// prefers the node its request fills most exactly (fewest GPUs left idle
// after it); a task that asks for none prefers nodes without GPUs, keeping
// GPU nodes whole for the work that needs them.
//
// Arguments: gpufrag.weight (default 1) multiplies the 0-100 score;
// gpufrag.resource (default nvidia.com/gpu) names the device resource.
package main

import caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"

func main() {}

func init() { caldera.Register(&gpuFrag{}) }

type gpuFrag struct {
	weight   int64
	resource string
}

func (*gpuFrag) Name() string { return "gpu-frag" }

func (g *gpuFrag) OnSessionOpen(s *caldera.Session) error {
	var err error
	if g.weight, err = s.Int("gpufrag.weight", 1); err != nil {
		return err
	}
	g.resource = "nvidia.com/gpu"
	if r, ok := s.Arguments["gpufrag.resource"].(string); ok && r != "" {
		g.resource = r
	}
	return nil
}

func (g *gpuFrag) NodeOrderBatch(_ *caldera.Session, task *caldera.Task, nodes []*caldera.Node, scores []float64) error {
	want := task.Request.Scalar(g.resource)
	for i, n := range nodes {
		scores[i] = float64(g.weight) * g.score(want, n)
	}
	return nil
}

// score is 0-100: for a GPU task, 100 when the request takes every idle GPU
// of the node and lower the more it leaves idle; for other tasks, 100 on a
// node without GPUs and 0 on one with any.
func (g *gpuFrag) score(want int64, n *caldera.Node) float64 {
	total := n.Allocatable.Scalar(g.resource)
	if want <= 0 {
		if total > 0 {
			return 0
		}
		return 100
	}
	idle := total - n.Used.Scalar(g.resource)
	if total <= 0 || idle < want {
		return 0
	}
	return 100 * (1 - float64(idle-want)/float64(total))
}
