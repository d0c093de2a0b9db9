package shuffle_test

import (
	"slices"
	"testing"

	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/scheduler/actions/internal/actiontest"
	"github.com/caldera-scheduler/caldera/scheduler/api"
)

// Volcano v1.15's TestShuffle (pkg/scheduler/actions/shuffle/shuffle_test.go,
// "select pods with low priority and evict them"): a plugin names the
// low-priority running pods, and shuffle evicts exactly those. Without a
// victim plugin it evicts nothing.
func TestShuffle(t *testing.T) {
	type pod struct {
		job, name, node string
		priority        int32
	}
	pods := []pod{
		{"pg1", "pod1-1", "node1", 10}, {"pg1", "pod1-2", "node1", 100}, {"pg1", "pod1-3", "node1", 100},
		{"pg2", "pod2-1", "node1", 10}, {"pg2", "pod2-2", "node2", 100},
		{"pg3", "pod3-1", "node2", 10}, {"pg3", "pod3-2", "node2", 100},
	}
	build := func() *actiontest.Cluster {
		c := actiontest.NewCluster().Node("node1", "4", "8Gi", 10).Node("node2", "4", "8Gi", 10).Queue("default", 1)
		jobs := map[string]*api.JobInfo{}
		for _, p := range pods {
			if jobs[p.job] == nil {
				jobs[p.job] = c.Job(p.job, "default", 0, v1beta1.PodGroupRunning, 0)
			}
			c.Pod(jobs[p.job], p.name, "1", "2G", p.node, p.priority)
		}
		return c
	}
	for _, tc := range []struct {
		name, config string
		want         []string
	}{
		{"select pods with low priority and evict them", "actions: shuffle\ntiers:\n- plugins:\n  - name: lowpriority\n", []string{"pod1-1", "pod2-1", "pod3-1"}},
		{"no victim plugin", "actions: shuffle\ntiers:\n- plugins:\n  - name: gang\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := actiontest.Run(t, build(), tc.config)
			if !slices.Equal(got.Evicted, tc.want) {
				t.Errorf("evicted %v, want %v", got.Evicted, tc.want)
			}
		})
	}
}
