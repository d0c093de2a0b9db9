package cache

import (
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// Measured usage reaches the snapshot's nodes and stays through node
// updates; a node left out of a later measure keeps its last one; a name
// the cache does not hold is skipped.
func TestNodeUsageReachesTheSnapshot(t *testing.T) {
	c := startCache(t, Options{}, []runtime.Object{testNode("n1", "4"), testNode("n2", "4")})
	eventually(t, "both nodes are in the cache", func() bool { return len(c.NodeNames()) == 2 })
	if got := c.NodeNames(); !slices.Equal(got, []string{"n1", "n2"}) {
		t.Fatalf("NodeNames %v", got)
	}
	at := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	first := api.NewNodeUsage(at, 10, 20)
	c.SetNodeUsage(map[string]*api.NodeUsage{"n1": first, "n2": api.NewNodeUsage(at, 30, 40), "gone": api.NewNodeUsage(at, 1, 1)})
	c.SetNodeUsage(map[string]*api.NodeUsage{"n2": api.NewNodeUsage(at.Add(time.Minute), 50, 60)})
	c.onNode(testNode("n1", "8"))
	snap := c.Snapshot()
	if snap.Nodes["n1"].Usage != first {
		t.Errorf("n1: %+v, want its measure kept through an update of the node", snap.Nodes["n1"].Usage)
	}
	if u := snap.Nodes["n2"].Usage; u == nil || u.CPUUsageAvg[api.UsagePeriod] != 50 || !u.MetricsTime.Equal(at.Add(time.Minute)) {
		t.Errorf("n2: %+v, want the later measure", u)
	}
	if _, ok := snap.Nodes["gone"]; ok {
		t.Error("a measure made up a node")
	}
}
