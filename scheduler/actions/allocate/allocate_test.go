package allocate_test

import (
	"reflect"
	"strings"
	"testing"

	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/scheduler/actions/allocate"
	"github.com/caldera-scheduler/caldera/scheduler/actions/internal/actiontest"
	"github.com/caldera-scheduler/caldera/scheduler/actions/internal/shared"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

func config(actions, queuesArgs string) string {
	return `actions: "` + actions + `"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: predicates
  - name: nodeorder
  - name: queues
    arguments: {` + queuesArgs + `}
`
}

const inqueue = v1beta1.PodGroupInqueue

// pendingJob is one node with room and a Pending job of one pod whose
// minResources is that pod's request.
func pendingJob(c *actiontest.Cluster) {
	c.Node("n1", "2", "8Gi", 110).Queue("q1", 1)
	j := c.Job("j1", "q1", 1, v1beta1.PodGroupPending, 0)
	c.Pod(j, "j1-t-0", "1", "1Gi", "", 0)
	j.PodGroup.Spec.MinResources = &j.Tasks[api.TaskID("ns/j1-t-0")].Pod.Spec.Containers[0].Resources.Requests
}

func TestAllocate(t *testing.T) {
	tests := []struct {
		name   string
		build  func(c *actiontest.Cluster)
		config string
		binds  map[string]string
		// check inspects the cluster after the session.
		check func(t *testing.T, c *actiontest.Cluster)
	}{
		{
			name: "gang that fits is bound, spread by least allocated",
			build: func(c *actiontest.Cluster) {
				c.Node("n1", "4", "8Gi", 110).Node("n2", "4", "8Gi", 110).Queue("q1", 1)
				j := c.Job("j1", "q1", 2, inqueue, 0)
				c.Pod(j, "j1-t-0", "1", "1Gi", "", 0)
				c.Pod(j, "j1-t-1", "1", "1Gi", "", 0)
			},
			config: config("allocate", ""),
			binds:  map[string]string{"j1-t-0": "n1", "j1-t-1": "n2"},
		},
		{
			name: "gang of 3 with room for 2 binds nothing",
			build: func(c *actiontest.Cluster) {
				c.Node("n1", "2", "8Gi", 110).Queue("q1", 1)
				j := c.Job("j1", "q1", 3, inqueue, 0)
				for _, n := range []string{"j1-t-0", "j1-t-1", "j1-t-2"} {
					c.Pod(j, n, "1", "1Gi", "", 0)
				}
			},
			config: config("allocate", ""),
			binds:  map[string]string{},
			check: func(t *testing.T, c *actiontest.Cluster) {
				if st := c.Task("j1-t-0").Status; st != api.Pending {
					t.Errorf("j1-t-0 is %v after discard, want Pending", st)
				}
				fe := c.Info.Jobs["ns/j1"].NodesFitErrors[c.Task("j1-t-2").UID]
				if fe == nil || !strings.Contains(fe.Error(), "Insufficient cpu") {
					t.Errorf("fit error of j1-t-2 = %v, want Insufficient cpu", fe)
				}
				if n := c.Info.Nodes["n1"]; n.Idle.MilliCPU != 2000 {
					t.Errorf("n1 idle cpu %v after discard, want 2000", n.Idle.MilliCPU)
				}
			},
		},
		{
			name: "higher-priority job goes first within a queue",
			build: func(c *actiontest.Cluster) {
				c.Node("n1", "1", "8Gi", 110).Queue("q1", 1)
				low := c.Job("low", "q1", 1, inqueue, 1)
				c.Pod(low, "low-t-0", "1", "1Gi", "", 0)
				high := c.Job("high", "q1", 1, inqueue, 10)
				c.Pod(high, "high-t-0", "1", "1Gi", "", 0)
			},
			config: config("allocate", ""),
			binds:  map[string]string{"high-t-0": "n1"},
		},
		{
			name: "older queue goes first; an overused queue gets nothing",
			build: func(c *actiontest.Cluster) {
				c.Node("n1", "2", "8Gi", 110).Queue("q1", 1).Queue("q2", 1).Queue("q3", 1)
				for _, q := range []string{"q3", "q2", "q1"} {
					j := c.Job("j-"+q, q, 1, inqueue, 0)
					c.Pod(j, "j-"+q+"-t-0", "1", "1Gi", "", 0)
				}
			},
			config: config("allocate", "overused: [q1]"),
			binds:  map[string]string{"j-q2-t-0": "n1", "j-q3-t-0": "n1"},
		},
		{
			name: "without a queue-order plugin the older queue stays first",
			build: func(c *actiontest.Cluster) {
				c.Node("n1", "2", "8Gi", 110).Queue("q1", 1).Queue("q2", 1)
				for _, name := range []string{"a1", "a2"} {
					j := c.Job(name, "q1", 1, inqueue, 0)
					c.Pod(j, name+"-t-0", "1", "1Gi", "", 0)
				}
				b := c.Job("b1", "q2", 1, inqueue, 0)
				c.Pod(b, "b1-t-0", "1", "1Gi", "", 0)
			},
			config: config("allocate", ""),
			binds:  map[string]string{"a1-t-0": "n1", "a2-t-0": "n1"},
		},
		{
			name: "job short of room except for releasing resources is pipelined, not bound",
			build: func(c *actiontest.Cluster) {
				c.Node("n1", "2", "8Gi", 110).Queue("q1", 1)
				old := c.Job("old", "q1", 1, v1beta1.PodGroupRunning, 0)
				c.Pod(old, "old-t-0", "1", "1Gi", "n1", 0)
				c.SetStatus("old-t-0", api.Releasing)
				j := c.Job("j1", "q1", 2, inqueue, 0)
				c.Pod(j, "j1-t-0", "1", "1Gi", "", 0)
				c.Pod(j, "j1-t-1", "1", "1Gi", "", 0)
			},
			config: config("allocate", ""),
			binds:  map[string]string{},
			check: func(t *testing.T, c *actiontest.Cluster) {
				got := []api.TaskStatus{c.Task("j1-t-0").Status, c.Task("j1-t-1").Status}
				want := []api.TaskStatus{api.Allocated, api.Pipelined}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("statuses %v, want %v (kept, not bound)", got, want)
				}
			},
		},
		{
			name: "gang that neither fits nor pipelines is undone, releasing room included",
			build: func(c *actiontest.Cluster) {
				c.Node("n1", "2", "8Gi", 110).Queue("q1", 1)
				old := c.Job("old", "q1", 1, v1beta1.PodGroupRunning, 0)
				c.Pod(old, "old-t-0", "1", "1Gi", "n1", 0)
				c.SetStatus("old-t-0", api.Releasing)
				j := c.Job("j1", "q1", 3, inqueue, 0)
				for _, n := range []string{"j1-t-0", "j1-t-1", "j1-t-2"} {
					c.Pod(j, n, "1", "1Gi", "", 0)
				}
			},
			config: config("allocate", ""),
			binds:  map[string]string{},
			check: func(t *testing.T, c *actiontest.Cluster) {
				for _, n := range []string{"j1-t-0", "j1-t-1", "j1-t-2"} {
					if st := c.Task(n).Status; st != api.Pending {
						t.Errorf("%s is %v, want Pending", n, st)
					}
				}
			},
		},
		{
			name:   "pending job waits for enqueue when enqueue runs",
			build:  pendingJob,
			config: config("enqueue, allocate", "rejectEnqueue: [j1]"),
			binds:  map[string]string{},
		},
		{
			// As Volcano (conf.EnabledActionMap): enqueue configured anywhere
			// is the only admission, so allocate run before it does not
			// admit what enqueue's plugins refuse.
			name:   "pending job waits for enqueue configured after allocate",
			build:  pendingJob,
			config: config("allocate, enqueue", "rejectEnqueue: [j1]"),
			binds:  map[string]string{},
		},
		{
			name: "pending job is admitted by allocate when no enqueue runs",
			build: func(c *actiontest.Cluster) {
				c.Node("n1", "2", "8Gi", 110).Queue("q1", 1)
				j := c.Job("j1", "q1", 1, v1beta1.PodGroupPending, 0)
				c.Pod(j, "j1-t-0", "1", "1Gi", "", 0)
			},
			config: config("allocate", "rejectEnqueue: [j1]"),
			binds:  map[string]string{"j1-t-0": "n1"},
		},
		{
			name: "unmatched node selector is reported per node",
			build: func(c *actiontest.Cluster) {
				c.Node("n1", "2", "8Gi", 110, "zone", "a").Queue("q1", 1)
				j := c.Job("j1", "q1", 1, inqueue, 0)
				c.Pod(j, "j1-t-0", "1", "1Gi", "", 0).Pod.Spec.NodeSelector = map[string]string{"zone": "b"}
			},
			config: config("allocate", ""),
			binds:  map[string]string{},
			check: func(t *testing.T, c *actiontest.Cluster) {
				j := c.Info.Jobs["ns/j1"]
				got := j.TaskPendingReason(c.Task("j1-t-0").UID)
				want := "0/1 nodes are unavailable: 1 node(s) didn't match Pod's node affinity/selector."
				if got != want {
					t.Errorf("pending reason %q, want %q", got, want)
				}
			},
		},
		{
			name: "elastic job binds its minimum, then the rest in later turns",
			build: func(c *actiontest.Cluster) {
				c.Node("n1", "3", "8Gi", 110).Queue("q1", 1)
				j := c.Job("j1", "q1", 1, inqueue, 0)
				for _, n := range []string{"j1-t-0", "j1-t-1", "j1-t-2", "j1-t-3"} {
					c.Pod(j, n, "1", "1Gi", "", 0)
				}
			},
			config: config("allocate", ""),
			binds:  map[string]string{"j1-t-0": "n1", "j1-t-1": "n1", "j1-t-2": "n1"},
		},
		{
			name: "best-effort tasks are left to backfill",
			build: func(c *actiontest.Cluster) {
				c.Node("n1", "2", "8Gi", 110).Queue("q1", 1)
				j := c.Job("j1", "q1", 1, inqueue, 0)
				c.Pod(j, "j1-t-0", "", "", "", 0)
			},
			config: config("allocate", ""),
			binds:  map[string]string{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := actiontest.NewCluster()
			tc.build(c)
			res := actiontest.Run(t, c, tc.config)
			if !reflect.DeepEqual(res.Binds, tc.binds) {
				t.Errorf("binds %v, want %v", res.Binds, tc.binds)
			}
			if tc.check != nil {
				tc.check(t, c)
			}
		})
	}
}

func TestArguments(t *testing.T) {
	tests := []struct {
		args    framework.Arguments
		wantErr string
	}{
		{args: nil},
		{args: framework.Arguments{"predicateErrorCacheEnable": false, "minNodesToFind": 10, "minPercentageOfNodesToFind": 1, "percentageOfNodesToFind": 50}},
		{args: framework.Arguments{"predicateErrorCacheEnable": "maybe"}, wantErr: "predicateErrorCacheEnable"},
		{args: framework.Arguments{"minNodesToFind": 1.5}, wantErr: "minNodesToFind"},
		{args: framework.Arguments{"minNodeToFind": 3}, wantErr: "unknown arguments"},
	}
	for _, tc := range tests {
		_, err := allocate.Factory(shared.New())(tc.args)
		if (err == nil) != (tc.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("args %v: error %v, want %q", tc.args, err, tc.wantErr)
		}
	}
}
