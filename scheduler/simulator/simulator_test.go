package simulator

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/conf"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// firstFit is a test action: every pending task of an admitted job goes to
// the first node (in session order) whose idle resources fit it.
type firstFit struct{}

func (firstFit) Name() string { return "firstfit" }

func (firstFit) Execute(ssn *framework.Session) {
	var jobs []*api.JobInfo
	for _, j := range ssn.Jobs {
		jobs = append(jobs, j)
	}
	sort.Slice(jobs, func(a, b int) bool { return jobs[a].UID < jobs[b].UID })
	for _, j := range jobs {
		if j.PodGroup.Status.Phase == "Pending" {
			continue
		}
		var tasks []*api.TaskInfo
		for _, t := range j.TaskStatusIndex[api.Pending] {
			tasks = append(tasks, t)
		}
		sort.Slice(tasks, func(a, b int) bool { return tasks[a].Name < tasks[b].Name })
		stmt := framework.NewStatement(ssn)
		for _, t := range tasks {
			for _, n := range ssn.NodeList {
				if t.Resreq.LessEqual(n.Idle, api.Zero) {
					_ = stmt.Allocate(t, n)
					break
				}
			}
		}
		stmt.Commit()
	}
}

// admitAll is a test action that moves every Pending PodGroup to Inqueue.
type admitAll struct{}

func (admitAll) Name() string { return "admitall" }

func (admitAll) Execute(ssn *framework.Session) {
	for _, j := range ssn.Jobs {
		if j.IsPending() {
			j.PodGroup.Status.Phase = "Inqueue"
		}
	}
}

func testActions() framework.ActionRegistry {
	r := framework.ActionRegistry{}
	_ = r.Register("firstfit", func(framework.Arguments) (framework.Action, error) { return firstFit{}, nil })
	_ = r.Register("admitall", func(framework.Arguments) (framework.Action, error) { return admitAll{}, nil })
	return r
}

const cluster = `
apiVersion: v1
kind: Node
metadata: {name: n1}
status:
  allocatable: {cpu: "2", memory: 4Gi, pods: "10"}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
status:
  allocatable: {cpu: "1", memory: 4Gi, pods: "10"}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: pg1, namespace: ns}
spec: {minMember: 2, queue: default}
status: {phase: Pending}
---
apiVersion: v1
kind: Pod
metadata:
  name: a
  namespace: ns
  annotations: {scheduling.k8s.io/group-name: pg1}
spec:
  schedulerName: volcano
  containers: [{name: c, image: x, resources: {requests: {cpu: "2"}}}]
---
apiVersion: v1
kind: Pod
metadata:
  name: b
  namespace: ns
  annotations: {scheduling.k8s.io/group-name: pg1}
spec:
  schedulerName: volcano
  containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: plain, namespace: ns}
spec:
  schedulerName: volcano
  containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: other, namespace: ns}
spec:
  schedulerName: default-scheduler
  containers: [{name: c, image: x}]
`

func TestRunBindsAdmitsAndRunsUntilQuiet(t *testing.T) {
	c, err := ParseCluster([]byte(cluster), "cluster.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := conf.Parse([]byte("actions: admitall, firstfit\ntiers: []\n"), "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Options{Cluster: c, Config: cfg, Plugins: framework.NewRegistry(), Actions: testActions()})
	if err != nil {
		t.Fatal(err)
	}
	if res.Binds["ns/a"] != "n1" || res.Binds["ns/b"] != "n2" {
		t.Errorf("binds = %v, want ns/a on n1 and ns/b on n2", res.Binds)
	}
	if _, ok := res.Binds["ns/plain"]; ok {
		t.Errorf("ns/plain was bound although no node had room: %v", res.Binds)
	}
	if _, ok := res.Binds["ns/other"]; ok {
		t.Errorf("a pod of another scheduler was bound")
	}
	if got := res.PodGroups["ns/pg1"].Phase; got != "Running" {
		t.Errorf("pg1 phase = %q, want Running once its pods run", got)
	}
	// Session 1 admits and binds, session 2 sees them running (phase
	// change), session 3 changes nothing.
	if res.Cycles != 3 {
		t.Errorf("cycles = %d, want 3", res.Cycles)
	}
}

// numatopo is Numatopology n1 with the given spec fields.
func numatopo(spec string) string {
	return "apiVersion: nodeinfo.volcano.sh/v1alpha1\nkind: Numatopology\nmetadata: {name: n1}\nspec: {" + spec + "}\n"
}

func pod(name, namespace string) string {
	return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name + ", namespace: \"" + namespace + "\"}\nspec: {containers: [{name: c}]}\n"
}

func TestParseClusterNamesBadDocument(t *testing.T) {
	for name, tc := range map[string]struct{ doc, want string }{
		"unsupported kind": {"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: s}\n", "document 1 (ConfigMap s): unsupported kind"},
		"no containers":    {"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {}\n", "document 1 (Pod default/p): spec.containers"},
		"bad quantity":     {"apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus: {allocatable: {cpu: lots}}\n", "document 1"},
		"missing name":     {"---\napiVersion: v1\nkind: Node\nmetadata: {}\n", "metadata.name is required"},
		"node twice": {"apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n1}\n",
			"document 2 (Node n1): defined twice, first in document 1"},
		"pod twice, namespace defaulted once": {pod("p", "") + "---\n" + pod("p", "default"),
			"document 2 (Pod default/p): defined twice, first in document 1"},
		"duplicate key": {"apiVersion: v1\nkind: Node\nmetadata: {name: twice}\nstatus: {allocatable: {cpu: \"4\"}}\nstatus: {allocatable: {cpu: \"8\"}}\n",
			"key \"status\" already set in map"},
		"unknown field": {"apiVersion: v1\nkind: Node\nmetadata: {name: typo}\nstatus: {allocatabel: {cpu: \"4\"}}\n", "unknown field \"status.allocatabel\""},
		"cpu beyond int64 milli": {"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, resources: {requests: {cpu: \"1e16\"}}}]}\n",
			"spec.containers[0].resources.requests.cpu: 10e15 is more than the scheduler can count"},
		"gpu beyond int64 milli": {"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: \"1e16\"}}}]}\n",
			"spec.containers[0].resources.limits.nvidia.com/gpu: 10e15 is more than"},
		"memory beyond int64": {"apiVersion: v1\nkind: Node\nmetadata: {name: big}\nstatus: {allocatable: {memory: \"1e30\"}}\n",
			"status.allocatable.memory: 1e30 is more than the scheduler can count (at most 9223372036854775807)"},
		"numatopology allocatable not a CPU list": {numatopo("numares: {cpu: {allocatable: \"0-x\"}}"),
			"document 1 (Numatopology n1): spec.numares.cpu.allocatable: \"0-x\" is not a CPU list"},
		"numatopology cpuDetail key": {numatopo("cpuDetail: {\"0\": {numa: 0}, first: {numa: 0}}"),
			"document 1 (Numatopology n1): spec.cpuDetail.first: the key is not a CPU ID"},
		"numatopology NUMA node 64": {numatopo("cpuDetail: {\"0\": {numa: 64}}"),
			"document 1 (Numatopology n1): spec.cpuDetail.0: numa 64, socket 0, core 0: a NUMA node is 0 to 63"},
		"numatopology policy": {numatopo("policies: {TopologyManagerPolicy: single-numa}"),
			"document 1 (Numatopology n1): spec.policies.TopologyManagerPolicy: \"single-numa\" is not a topology manager policy"},
		"numatopology reservation":   {numatopo("resReserved: {cpu: lots}"), "document 1 (Numatopology n1): spec.resReserved: cpu:"},
		"numatopology unknown field": {numatopo("cpuDetails: {}"), "unknown field \"spec.cpuDetails\""},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseCluster([]byte(tc.doc), "c.yaml")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// A hand-written node without a pod count gets the kubelet's default, 110,
// in capacity and allocatable alike; one that gives a count keeps it.
func TestNodeWithoutPodCountTakesPods(t *testing.T) {
	c, err := ParseCluster([]byte("apiVersion: v1\nkind: Node\nmetadata: {name: bare}\nstatus: {allocatable: {cpu: \"4\"}}\n---\n"+
		"apiVersion: v1\nkind: Node\nmetadata: {name: small}\nstatus: {allocatable: {cpu: \"4\", pods: \"3\"}}\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int64{110, 3} {
		n := c.Nodes[i]
		if got := n.Status.Allocatable.Pods().Value(); got != want {
			t.Errorf("%s: allocatable pods %d, want %d", n.Name, got, want)
		}
		if got := n.Status.Capacity.Pods().Value(); got != want {
			t.Errorf("%s: capacity pods %d, want %d", n.Name, got, want)
		}
	}
}
