package cache

import (
	"context"
	"strconv"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/cpuset"
	nodeinfov1alpha1 "volcano.sh/apis/pkg/apis/nodeinfo/v1alpha1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// numatopology is node name's report: eight CPUs on two NUMA nodes, the
// given ones free.
func numatopology(name, allocatable string) *nodeinfov1alpha1.Numatopology {
	o := &nodeinfov1alpha1.Numatopology{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: nodeinfov1alpha1.NumatopoSpec{
			Policies: map[nodeinfov1alpha1.PolicyName]string{
				nodeinfov1alpha1.CPUManagerPolicy:      api.CPUManagerPolicyStatic,
				nodeinfov1alpha1.TopologyManagerPolicy: api.TopologyPolicySingleNumaNode,
			},
			NumaResMap: map[string]nodeinfov1alpha1.ResourceInfo{"cpu": {Allocatable: allocatable, Capacity: 8}},
			CPUDetail:  map[string]nodeinfov1alpha1.CPUInfo{},
		},
	}
	for id := 0; id < 8; id++ {
		o.Spec.CPUDetail[strconv.Itoa(id)] = nodeinfov1alpha1.CPUInfo{NUMANodeID: id / 4, SocketID: id / 4, CoreID: id / 2}
	}
	return o
}

// snapshotCPUs is the free CPU set a session would see on the node; "none"
// when the node has no NUMA information.
func snapshotCPUs(c *Cache, node string) string {
	n := c.Snapshot().Nodes[node]
	if n == nil || n.Numa == nil {
		return "none"
	}
	return n.Numa.Allocatable["cpu"].String()
}

// reported is the node's last report the cache received.
func reported(c *Cache, node string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st := c.numa[node]; st != nil && st.reported != nil {
		return st.reported.Allocatable["cpu"].String()
	}
	return "none"
}

// The CPUs a session assigned stay out of the node's free set until the
// agent reports again, as Volcano's cache keeps them: a report that
// shrank replaces the scheduler's set only where it is no larger, one that
// grew replaces it; a deleted report takes the information away.
func TestNumaSetsKeptUntilTheAgentReports(t *testing.T) {
	c := startCache(t, Options{}, []runtime.Object{testNode("n1", "8")}, numatopology("n1", "0-7"))
	if got := snapshotCPUs(c, "n1"); got != "0-7" {
		t.Fatalf("first snapshot: %s, want 0-7", got)
	}
	c.UpdateNumaSets(map[string]api.NumaSets{"n1": {"cpu": cpuset.New(0, 1, 2)}, "gone": {"cpu": cpuset.New(0)}})
	if got := snapshotCPUs(c, "n1"); got != "3-7" {
		t.Fatalf("after a session assigned 0-2: %s, want 3-7", got)
	}
	update := func(allocatable string) {
		t.Helper()
		_, err := c.opts.VCClient.NodeinfoV1alpha1().Numatopologies().Update(context.Background(), numatopology("n1", allocatable), metav1.UpdateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		eventually(t, "the report "+allocatable, func() bool { return reported(c, "n1") == allocatable })
	}
	// The kubelet has taken up CPU 0 only: the report (7 CPUs) shrank, and
	// is larger than the scheduler's (5): the scheduler's stays.
	update("1-7")
	if got := snapshotCPUs(c, "n1"); got != "3-7" {
		t.Errorf("after a report of 1-7: %s, want 3-7", got)
	}
	// Now it has taken up 0-3 (one more pod): the report is no larger.
	update("4-7")
	if got := snapshotCPUs(c, "n1"); got != "4-7" {
		t.Errorf("after a report of 4-7: %s, want 4-7", got)
	}
	// Pods ended: the report grew, and replaces the scheduler's.
	update("0-7")
	if got := snapshotCPUs(c, "n1"); got != "0-7" {
		t.Errorf("after a report of 0-7: %s, want 0-7", got)
	}
	if err := c.opts.VCClient.NodeinfoV1alpha1().Numatopologies().Delete(context.Background(), "n1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the delete", func() bool { return reported(c, "n1") == "none" })
	if got := snapshotCPUs(c, "n1"); got != "none" {
		t.Errorf("after the delete: %s, want none", got)
	}
}

// A report that arrives before its node is used once the node does; a
// malformed one is read as Volcano reads it (an allocatable set that is no
// CPU list is empty), and one that places a CPU on NUMA node 64 leaves
// the node without NUMA information.
func TestNumaReportsBeforeNodesAndMalformed(t *testing.T) {
	bad := numatopology("n2", "0-x")
	wide := numatopology("n3", "0-7")
	wide.Spec.CPUDetail["7"] = nodeinfov1alpha1.CPUInfo{NUMANodeID: 64}
	c := startCache(t, Options{}, []runtime.Object{testNode("n2", "8"), testNode("n3", "8")}, numatopology("n1", "0-7"), bad, wide)
	if got := snapshotCPUs(c, "n2"); got != "" {
		t.Errorf("n2 with allocatable 0-x: %q, want an empty set", got)
	}
	if got := snapshotCPUs(c, "n3"); got != "none" {
		t.Errorf("n3 with NUMA node 64: %s, want none", got)
	}
	if _, err := c.opts.Client.CoreV1().Nodes().Create(context.Background(), testNode("n1", "8"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "node n1", func() bool { return c.Snapshot().Nodes["n1"] != nil })
	if got := snapshotCPUs(c, "n1"); got != "0-7" {
		t.Errorf("n1, reported before it came: %s, want 0-7", got)
	}
}

func TestWithoutNumatopologies(t *testing.T) {
	c := startCache(t, Options{WithoutNumatopologies: true}, []runtime.Object{testNode("n1", "8")}, numatopology("n1", "0-7"))
	if got := snapshotCPUs(c, "n1"); got != "none" {
		t.Errorf("%s, want none", got)
	}
}
