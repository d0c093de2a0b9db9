package preempt_test

import (
	"reflect"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/scheduler/actions/internal/actiontest"
	"github.com/caldera-scheduler/caldera/scheduler/actions/internal/shared"
	"github.com/caldera-scheduler/caldera/scheduler/actions/preempt"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

func config(args string) string {
	return `actions: "preempt"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: predicates
  - name: nodeorder
  - name: queues
configurations:
- name: preempt
  arguments: {` + args + `}
`
}

const (
	running = v1beta1.PodGroupRunning
	inqueue = v1beta1.PodGroupInqueue
)

// lowOnN1 fills a 2-cpu node with two pods of a low-priority job in q1.
func lowOnN1(c *actiontest.Cluster) {
	c.Node("n1", "2", "4Gi", 110).Queue("q1", 1).Queue("q2", 1)
	low := c.Job("low", "q1", 1, running, 1)
	c.Pod(low, "low-t-0", "1", "1Gi", "n1", 1)
	c.Pod(low, "low-t-1", "1", "1Gi", "n1", 1)
}

func TestPreempt(t *testing.T) {
	never := v1.PreemptNever
	tests := []struct {
		name      string
		build     func(c *actiontest.Cluster)
		args      string
		evicted   []string
		pipelined map[string]string
	}{
		{
			name: "higher-priority job evicts a lower one's task in the same queue and is pipelined",
			build: func(c *actiontest.Cluster) {
				lowOnN1(c)
				high := c.Job("high", "q1", 1, inqueue, 10)
				c.Pod(high, "high-t-0", "1", "1Gi", "", 10)
			},
			evicted:   []string{"low-t-1"},
			pipelined: map[string]string{"high-t-0": "n1"},
		},
		{
			name: "topology-aware preemption picks the same minimal victim",
			build: func(c *actiontest.Cluster) {
				lowOnN1(c)
				high := c.Job("high", "q1", 1, inqueue, 10)
				c.Pod(high, "high-t-0", "1", "1Gi", "", 10)
			},
			args:      "enableTopologyAwarePreemption: true",
			evicted:   []string{"low-t-1"},
			pipelined: map[string]string{"high-t-0": "n1"},
		},
		{
			name: "a lower-priority job cannot preempt",
			build: func(c *actiontest.Cluster) {
				lowOnN1(c)
				lower := c.Job("lower", "q1", 1, inqueue, 0)
				c.Pod(lower, "lower-t-0", "1", "1Gi", "", 0)
			},
		},
		{
			name: "tasks of another queue are not preempted",
			build: func(c *actiontest.Cluster) {
				lowOnN1(c)
				high := c.Job("high", "q2", 1, inqueue, 10)
				c.Pod(high, "high-t-0", "1", "1Gi", "", 10)
			},
		},
		{
			name: "a gang that cannot be pipelined whole evicts nothing",
			build: func(c *actiontest.Cluster) {
				lowOnN1(c)
				high := c.Job("high", "q1", 2, inqueue, 10)
				c.Pod(high, "high-t-0", "2", "1Gi", "", 10)
				c.Pod(high, "high-t-1", "2", "1Gi", "", 10)
			},
		},
		{
			name: "preemptionPolicy Never does not preempt",
			build: func(c *actiontest.Cluster) {
				lowOnN1(c)
				high := c.Job("high", "q1", 1, inqueue, 10)
				c.Pod(high, "high-t-0", "1", "1Gi", "", 10).Pod.Spec.PreemptionPolicy = &never
			},
		},
		{
			name: "within a job, a higher-priority pending task evicts a lower one",
			build: func(c *actiontest.Cluster) {
				c.Node("n1", "1", "4Gi", 110).Queue("q1", 1)
				j := c.Job("j", "q1", 2, running, 1)
				c.Pod(j, "j-t-0", "1", "1Gi", "n1", 1)
				c.Pod(j, "j-t-1", "1", "1Gi", "", 5)
			},
			evicted:   []string{"j-t-0"},
			pipelined: map[string]string{"j-t-1": "n1"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := actiontest.NewCluster()
			tc.build(c)
			res := actiontest.Run(t, c, config(tc.args))
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
			if len(res.Binds) != 0 {
				t.Errorf("preempt bound %v", res.Binds)
			}
		})
	}
}

func TestArguments(t *testing.T) {
	good := framework.Arguments{"enableTopologyAwarePreemption": true, "topologyAwarePreemptWorkerNum": 4,
		"minCandidateNodesPercentage": 20, "minCandidateNodesAbsolute": 2, "maxCandidateNodesAbsolute": 50,
		"predicateErrorCacheEnable": false, "minNodesToFind": 50}
	if _, err := preempt.Factory(shared.New())(good); err != nil {
		t.Errorf("valid arguments rejected: %v", err)
	}
	_, err := preempt.Factory(shared.New())(framework.Arguments{"enableTopologyAwarePreemption": "sometimes"})
	if err == nil || !strings.Contains(err.Error(), "enableTopologyAwarePreemption") {
		t.Errorf("bad flag: error %v", err)
	}
}
