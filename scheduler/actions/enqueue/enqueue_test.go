package enqueue_test

import (
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/scheduler/actions/internal/actiontest"
)

const config = `actions: "enqueue"
tiers:
- plugins:
  - name: gang
  - name: queues
    arguments: {rejectEnqueue: [refused]}
`

func TestEnqueue(t *testing.T) {
	minResources := v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")}
	tests := []struct {
		name   string
		build  func(c *actiontest.Cluster)
		phases map[string]v1beta1.PodGroupPhase
	}{
		{
			name: "pending job without minResources is admitted",
			build: func(c *actiontest.Cluster) {
				j := c.Job("plain", "q1", 1, v1beta1.PodGroupPending, 0)
				c.Pod(j, "plain-0", "1", "1Gi", "", 0)
			},
			phases: map[string]v1beta1.PodGroupPhase{"plain": v1beta1.PodGroupInqueue},
		},
		{
			name: "job with minResources is admitted when the plugins permit it",
			build: func(c *actiontest.Cluster) {
				j := c.Job("sized", "q1", 1, "", 0)
				j.PodGroup.Spec.MinResources = &minResources
				c.Pod(j, "sized-0", "1", "1Gi", "", 0)
			},
			phases: map[string]v1beta1.PodGroupPhase{"sized": v1beta1.PodGroupInqueue},
		},
		{
			name: "a refused job stays pending and does not block the next",
			build: func(c *actiontest.Cluster) {
				r := c.Job("refused", "q1", 1, v1beta1.PodGroupPending, 0)
				r.PodGroup.Spec.MinResources = &minResources
				c.Pod(r, "refused-0", "1", "1Gi", "", 0)
				ok := c.Job("later", "q1", 1, v1beta1.PodGroupPending, 0)
				ok.PodGroup.Spec.MinResources = &minResources
				c.Pod(ok, "later-0", "1", "1Gi", "", 0)
			},
			phases: map[string]v1beta1.PodGroupPhase{"refused": v1beta1.PodGroupPending, "later": v1beta1.PodGroupInqueue},
		},
		{
			name: "a job whose queue does not exist is left alone",
			build: func(c *actiontest.Cluster) {
				j := c.Job("lost", "nowhere", 1, v1beta1.PodGroupPending, 0)
				c.Pod(j, "lost-0", "1", "1Gi", "", 0)
			},
			phases: map[string]v1beta1.PodGroupPhase{"lost": v1beta1.PodGroupPending},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := actiontest.NewCluster().Node("n1", "4", "8Gi", 110).Queue("q1", 1)
			tc.build(c)
			res := actiontest.Run(t, c, config)
			if !reflect.DeepEqual(res.Phases, tc.phases) {
				t.Errorf("phases %v, want %v", res.Phases, tc.phases)
			}
			if len(res.Binds) != 0 {
				t.Errorf("enqueue bound %v", res.Binds)
			}
		})
	}
}
