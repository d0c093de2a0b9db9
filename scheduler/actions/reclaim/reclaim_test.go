package reclaim_test

import (
	"reflect"
	"testing"

	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/scheduler/actions/internal/actiontest"
	"github.com/caldera-scheduler/caldera/scheduler/api"
)

func config(overused string) string {
	return `actions: "reclaim"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: predicates
  - name: queues
    arguments: {overused: [` + overused + `]}
`
}

func TestReclaim(t *testing.T) {
	tests := []struct {
		name      string
		overused  string
		build     func(c *actiontest.Cluster)
		evicted   []string
		pipelined map[string]string
	}{
		{
			name:     "a starving job reclaims from an overused queue",
			overused: "q1",
			build: func(c *actiontest.Cluster) {
				starved := c.Job("starved", "q2", 1, v1beta1.PodGroupInqueue, 0)
				c.Pod(starved, "starved-t-0", "1", "1Gi", "", 0)
			},
			evicted:   []string{"hog-t-1"},
			pipelined: map[string]string{"starved-t-0": "n1"},
		},
		{
			name: "nothing is reclaimed from a queue within its share",
			build: func(c *actiontest.Cluster) {
				starved := c.Job("starved", "q2", 1, v1beta1.PodGroupInqueue, 0)
				c.Pod(starved, "starved-t-0", "1", "1Gi", "", 0)
			},
		},
		{
			name:     "an overused queue does not reclaim for its own jobs",
			overused: "q1, q2",
			build: func(c *actiontest.Cluster) {
				starved := c.Job("starved", "q2", 1, v1beta1.PodGroupInqueue, 0)
				c.Pod(starved, "starved-t-0", "1", "1Gi", "", 0)
			},
		},
		{
			name:     "a queue marked not reclaimable keeps its tasks",
			overused: "q1",
			build: func(c *actiontest.Cluster) {
				no := false
				c.Info.Queues["q1"].Queue.Spec.Reclaimable = &no
				starved := c.Job("starved", "q2", 1, v1beta1.PodGroupInqueue, 0)
				c.Pod(starved, "starved-t-0", "1", "1Gi", "", 0)
			},
		},
		{
			name:     "tasks of the job's own queue are not reclaimed",
			overused: "q1",
			build: func(c *actiontest.Cluster) {
				starved := c.Job("starved", "q1", 1, v1beta1.PodGroupInqueue, 0)
				c.Pod(starved, "starved-t-0", "1", "1Gi", "", 0)
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := actiontest.NewCluster().Node("n1", "2", "4Gi", 110).Queue("q1", 1).Queue("q2", 1)
			hog := c.Job("hog", "q1", 1, v1beta1.PodGroupRunning, 0)
			c.Pod(hog, "hog-t-0", "1", "1Gi", "n1", 0)
			c.Pod(hog, "hog-t-1", "1", "1Gi", "n1", 0)
			tc.build(c)
			res := actiontest.Run(t, c, config(tc.overused))
			if !reflect.DeepEqual(res.Evicted, tc.evicted) {
				t.Errorf("evicted %v, want %v", res.Evicted, tc.evicted)
			}
			pipelined := map[string]string{}
			for _, j := range c.Info.Jobs {
				for _, task := range j.TaskStatusIndex[api.Pipelined] {
					pipelined[task.Name] = task.NodeName
				}
			}
			if tc.pipelined == nil {
				tc.pipelined = map[string]string{}
			}
			if !reflect.DeepEqual(pipelined, tc.pipelined) {
				t.Errorf("pipelined %v, want %v", pipelined, tc.pipelined)
			}
		})
	}
}
