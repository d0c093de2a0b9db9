package placement

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/caldera-scheduler/caldera/scheduler/actions/internal/shared"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

func TestNumToFind(t *testing.T) {
	d := DefaultSearchArgs()
	tests := []struct {
		args  SearchArgs
		nodes int
		want  int
	}{
		{d, 50, 50},    // small clusters are searched in full
		{d, 100, 100},  // up to minNodesToFind
		{d, 1250, 500}, // 50 - 1250/125 = 40%
		{d, 5000, 500}, // 10%
		{d, 6000, 300}, // 2% is below the 5% floor
		{d, 1000, 420}, // 42%
		{d, 101, 100},  // never fewer than minNodesToFind
		{SearchArgs{MinNodesToFind: 100, PercentageOfNodesToFind: 100}, 5000, 5000},
		{SearchArgs{MinNodesToFind: 10, PercentageOfNodesToFind: 20}, 1000, 200},
	}
	for _, tc := range tests {
		if got := tc.args.NumToFind(tc.nodes); got != tc.want {
			t.Errorf("NumToFind(%d) with %+v = %d, want %d", tc.nodes, tc.args, got, tc.want)
		}
	}
}

// TestFindRotates checks that searches start where the previous one stopped,
// one feasible node beyond those kept, and skip nodes a task of the same
// role failed on.
func TestFindRotates(t *testing.T) {
	var nodes []*api.NodeInfo
	for i := 0; i < 10; i++ {
		nodes = append(nodes, api.NewNodeInfo(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("n%d", i)},
			Status: v1.NodeStatus{Allocatable: v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")}}}))
	}
	args := SearchArgs{ErrorCache: true, MinNodesToFind: 3, PercentageOfNodesToFind: 30}
	f := NewFinder(args, shared.New(), nil)
	calls := 0
	pred := func(_ *api.TaskInfo, n *api.NodeInfo) *framework.Status {
		calls++
		if n.Name == "n1" {
			return framework.NewStatus(framework.Unschedulable, "no")
		}
		return nil
	}
	task := &api.TaskInfo{Job: "ns/j", TaskRole: "worker"}
	names := func(ns []*api.NodeInfo) string { return fmt.Sprint(len(ns), ns[0].Name, ns[len(ns)-1].Name) }

	got, fe := f.Find(task, nodes, pred)
	if names(got) != "3n0n3" || fe.Error() != "0/1 nodes are unavailable: 1 no." {
		t.Fatalf("first search %s, %v", names(got), fe)
	}
	// n0, n1 (fails), n2, n3 kept; n4 is the one beyond: next starts at n5.
	if got, _ := f.Find(task, nodes, pred); names(got) != "3n5n7" {
		t.Errorf("second search %s, want 3 nodes n5..n7", names(got))
	}
	calls = 0
	// n9, n0, n1 (cached failure, not evaluated), n2; n3 beyond.
	if got, _ := f.Find(task, nodes, pred); names(got) != "3n9n2" || calls != 4 {
		t.Errorf("third search %s with %d predicate calls, want n9..n2 with 4", names(got), calls)
	}
}
