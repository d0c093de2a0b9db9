package backfill_test

import (
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"

	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/scheduler/actions/internal/actiontest"
	"github.com/caldera-scheduler/caldera/scheduler/api"
)

const config = `actions: "allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: predicates
  - name: nodeorder
`

func TestBackfill(t *testing.T) {
	tests := []struct {
		name  string
		build func(c *actiontest.Cluster)
		// config replaces the default configuration when set.
		config string
		binds  map[string]string
		check  func(t *testing.T, c *actiontest.Cluster)
	}{
		{
			name: "best-effort pod goes on a full node with a free pod slot",
			build: func(c *actiontest.Cluster) {
				c.Node("n1", "1", "1Gi", 110)
				busy := c.Job("busy", "q1", 1, v1beta1.PodGroupRunning, 0)
				c.Pod(busy, "busy-0", "1", "1Gi", "n1", 0)
				be := c.Job("be", "q1", 1, v1beta1.PodGroupInqueue, 0)
				c.Pod(be, "be-0", "", "", "", 0)
			},
			binds: map[string]string{"be-0": "n1"},
		},
		{
			name: "best-effort pod prefers the least allocated node",
			build: func(c *actiontest.Cluster) {
				c.Node("n1", "4", "8Gi", 110).Node("n2", "4", "8Gi", 110)
				busy := c.Job("busy", "q1", 1, v1beta1.PodGroupRunning, 0)
				c.Pod(busy, "busy-0", "2", "1Gi", "n1", 0)
				be := c.Job("be", "q1", 1, v1beta1.PodGroupInqueue, 0)
				c.Pod(be, "be-0", "", "", "", 0)
			},
			binds: map[string]string{"be-0": "n2"},
		},
		{
			name: "no pod slot left: the pod stays pending with the reason",
			build: func(c *actiontest.Cluster) {
				c.Node("n1", "4", "8Gi", 1)
				busy := c.Job("busy", "q1", 1, v1beta1.PodGroupRunning, 0)
				c.Pod(busy, "busy-0", "1", "1Gi", "n1", 0)
				be := c.Job("be", "q1", 1, v1beta1.PodGroupInqueue, 0)
				c.Pod(be, "be-0", "", "", "", 0)
			},
			binds: map[string]string{},
			check: func(t *testing.T, c *actiontest.Cluster) {
				got := c.Info.Jobs["ns/be"].TaskPendingReason(api.TaskID("ns/be-0"))
				if want := "0/1 nodes are unavailable: 1 Too many pods."; got != want {
					t.Errorf("reason %q, want %q", got, want)
				}
			},
		},
		{
			name: "pending PodGroups are not backfilled",
			build: func(c *actiontest.Cluster) {
				c.Node("n1", "4", "8Gi", 110)
				be := c.Job("be", "q1", 1, v1beta1.PodGroupPending, 0)
				be.PodGroup.Spec.MinResources = &v1.ResourceList{}
				c.Pod(be, "be-0", "", "", "", 0)
			},
			config: `actions: "enqueue, backfill"
tiers:
- plugins:
  - name: gang
  - name: queues
    arguments: {rejectEnqueue: [be]}
`,
			binds: map[string]string{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := actiontest.NewCluster().Queue("q1", 1)
			tc.build(c)
			cfg := config
			if tc.config != "" {
				cfg = tc.config
			}
			res := actiontest.Run(t, c, cfg)
			if !reflect.DeepEqual(res.Binds, tc.binds) {
				t.Errorf("binds %v, want %v", res.Binds, tc.binds)
			}
			if tc.check != nil {
				tc.check(t, c)
			}
		})
	}
}
