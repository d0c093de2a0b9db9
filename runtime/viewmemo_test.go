package runtime

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/conf"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// cloningCache hands every session a copy of one cluster, as the
// scheduler's cache does, and accepts every decision.
type cloningCache struct{ base *api.ClusterInfo }

func (c cloningCache) Snapshot() *api.ClusterInfo       { return c.base.Clone() }
func (cloningCache) Bind(*api.TaskInfo, string) error   { return nil }
func (cloningCache) Evict(*api.TaskInfo, string) error  { return nil }
func (cloningCache) UpdateJobStatus(*api.JobInfo, bool) {}

// memoCluster is a cluster that a test changes between sessions the way
// the cache does: pods and nodes replaced by new objects, tasks moved
// between statuses and onto nodes.
type memoCluster struct {
	ci   *api.ClusterInfo
	rng  *rand.Rand
	seq  int
	pods []*v1.Pod
}

func newMemoCluster(seed uint64) *memoCluster {
	c := &memoCluster{ci: api.NewClusterInfo(), rng: rand.New(rand.NewPCG(seed, 7))}
	for i := range 8 {
		name := fmt.Sprintf("n%d", i)
		c.ci.Nodes[name] = api.NewNodeInfo(c.node(name))
		c.ci.NodeList = append(c.ci.NodeList, name)
	}
	for j := range 4 {
		c.addJob(fmt.Sprintf("pg%d", j), 3)
	}
	return c
}

func (c *memoCluster) addJob(name string, pods int) {
	job := api.NewJobInfo(api.JobID("ns/" + name))
	job.SetPodGroup(&v1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name},
		Spec: v1beta1.PodGroupSpec{MinMember: 2}})
	c.ci.Jobs[job.UID] = job
	for range pods {
		c.addPod(c.pod(fmt.Sprintf("p%d", len(c.pods)), name, ""))
	}
}

func (c *memoCluster) node(name string) *v1.Node {
	c.seq++
	rl := v1.ResourceList{v1.ResourceCPU: resource.MustParse("8"), v1.ResourceMemory: resource.MustParse("16Gi"), v1.ResourcePods: resource.MustParse("110")}
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"rev": fmt.Sprint(c.seq)}},
		Status: v1.NodeStatus{Capacity: rl, Allocatable: rl}}
}

func (c *memoCluster) pod(name, group, node string) *v1.Pod {
	c.seq++
	phase := v1.PodPending
	if node != "" {
		phase = v1.PodRunning
	}
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name),
			Labels: map[string]string{"rev": fmt.Sprint(c.seq)}, Annotations: map[string]string{api.GroupNameAnnotation: group}},
		Spec: v1.PodSpec{NodeName: node, Containers: []v1.Container{{Resources: v1.ResourceRequirements{
			Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse(fmt.Sprintf("%dm", 100+c.rng.IntN(900)))}}}}},
		Status: v1.PodStatus{Phase: phase},
	}
}

// addPod records a pod as the cache does: a task in its job, and on its
// node when it has one.
func (c *memoCluster) addPod(p *v1.Pod) {
	t := api.NewTaskInfo(p)
	c.ci.Jobs[t.Job].AddTaskInfo(t)
	if t.NodeName != "" {
		c.ci.Nodes[t.NodeName].AddTask(t)
	}
	for i, old := range c.pods {
		if old.UID == p.UID {
			c.pods[i] = p
			return
		}
	}
	c.pods = append(c.pods, p)
}

func (c *memoCluster) removePod(p *v1.Pod) {
	t := c.ci.Jobs[api.NewTaskInfo(p).Job].Tasks[api.TaskID(p.UID)]
	if n, ok := c.ci.Nodes[t.NodeName]; ok {
		n.RemoveTask(t)
	}
	c.ci.Jobs[t.Job].DeleteTaskInfo(t)
}

// change makes one random change.
func (c *memoCluster) change() {
	p := c.pods[c.rng.IntN(len(c.pods))]
	group := p.Annotations[api.GroupNameAnnotation]
	switch c.rng.IntN(6) {
	case 0: // the pod's object is replaced, same placement
		c.removePod(p)
		c.addPod(c.pod(p.Name, group, p.Spec.NodeName))
	case 1: // the pod lands on a node
		c.removePod(p)
		c.addPod(c.pod(p.Name, group, c.ci.NodeList[c.rng.IntN(len(c.ci.NodeList))]))
	case 2: // a bind is sent: the task's status changes, its pod does not
		job := c.ci.Jobs[api.NewTaskInfo(p).Job]
		if t := job.Tasks[api.TaskID(p.UID)]; t.NodeName == "" {
			job.UpdateTaskStatus(t, api.Binding)
			t.NodeName = c.ci.NodeList[c.rng.IntN(len(c.ci.NodeList))]
			c.ci.Nodes[t.NodeName].AddTask(t)
		}
	case 3: // a bound task is evicted, or a binding one sent elsewhere
		job := c.ci.Jobs[api.NewTaskInfo(p).Job]
		t := job.Tasks[api.TaskID(p.UID)]
		switch t.Status {
		case api.Running:
			job.UpdateTaskStatus(t, api.Releasing)
			c.ci.Nodes[t.NodeName].UpdateTask(t)
		case api.Binding:
			c.ci.Nodes[t.NodeName].RemoveTask(t)
			t.NodeName = c.ci.NodeList[c.rng.IntN(len(c.ci.NodeList))]
			c.ci.Nodes[t.NodeName].AddTask(t)
		}
	case 4: // a node's object is replaced
		name := c.ci.NodeList[c.rng.IntN(len(c.ci.NodeList))]
		c.ci.Nodes[name].SetNode(c.node(name))
	case 5: // a job arrives, so that handles after it shift
		c.addJob(fmt.Sprintf("pg%d-%d", c.rng.IntN(4), c.seq), 1)
	}
}

// placeInSession places a pending task within the session, as allocate
// does: the session's copy of the node changes, not the cluster's.
func (c *memoCluster) placeInSession(t *testing.T, ssn *framework.Session) bool {
	t.Helper()
	for _, j := range ssn.JobList {
		for _, task := range j.TaskStatusIndex[api.Pending] {
			n := ssn.NodeList[c.rng.IntN(len(ssn.NodeList))]
			if err := framework.NewStatement(ssn).Allocate(task, n); err != nil {
				t.Fatal(err)
			}
			return true
		}
	}
	return false
}

func (c *memoCluster) session(t *testing.T) *framework.Session {
	t.Helper()
	ssn, err := framework.OpenSession(cloningCache{c.ci}, framework.Registry{}, &conf.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ssn.Close)
	return ssn
}

// The memo must never change a view: sessions over a cluster that changes
// between them encode to exactly what a memo that has seen nothing gives,
// and unchanged objects do come from the memo.
func TestViewMemoGivesWhatEncodingGives(t *testing.T) {
	for seed := range uint64(20) {
		c := newMemoCluster(seed)
		memo := &viewMemo{}
		var last *encodedView
		reused := 0
		for round := range 30 {
			ssn := c.session(t)
			memo.turn()
			got, want := encodeView(ssn, memo), encodeView(ssn, &viewMemo{})
			// A reopen encodes the session's own changes through the same
			// memo; the cluster may later reach states with as many changes
			// on that node but other pods, which must not be taken for it.
			if c.rng.IntN(2) == 0 && c.placeInSession(t, ssn) {
				compareViews(t, fmt.Sprintf("seed %d round %d, reopened", seed, round), encodeView(ssn, memo), encodeView(ssn, &viewMemo{}), nil)
			}
			reused += compareViews(t, fmt.Sprintf("seed %d round %d", seed, round), got, want, last)
			last = got
			for range 1 + c.rng.IntN(3) {
				c.change()
			}
		}
		if reused == 0 {
			t.Fatalf("seed %d: no object came from the memo", seed)
		}
	}
}

// compareViews fails the test unless got, encoded through a memo, is want,
// encoded afresh; it returns how many of got's objects are last's very
// bytes, taken from the memo.
func compareViews(t *testing.T, what string, got, want, last *encodedView) (reused int) {
	t.Helper()
	for l := range numLists {
		if len(got.objs[l]) != len(want.objs[l]) {
			t.Fatalf("%s, list %d: %d objects, want %d", what, l, len(got.objs[l]), len(want.objs[l]))
		}
		for i := range want.objs[l] {
			if got.keys[l][i] != want.keys[l][i] || !bytes.Equal(got.objs[l][i], want.objs[l][i]) || got.sums[l][i] != want.sums[l][i] {
				t.Fatalf("%s: %s differs from a fresh encoding", what, want.keys[l][i])
			}
			if last != nil && i < len(last.objs[l]) && &got.objs[l][i][0] == &last.objs[l][i][0] {
				reused++
			}
		}
	}
	if fmt.Sprint(got.handles.taskShape) != fmt.Sprint(want.handles.taskShape) {
		t.Fatalf("%s: task shapes %v, want %v", what, got.handles.taskShape, want.handles.taskShape)
	}
	return reused
}

// A module of ABI 1.11 gets a changed list as runs of what it holds plus
// the objects that changed (kept runs), never whole after its first
// session, and scores every pending task on every node as a module sent
// the whole view does, over clusters whose pods, nodes and jobs come, go
// and move between sessions (nodeorder's scores read the task's requests
// and the node's pods, so a task or node out of place shows).
func TestKeptRunsDecideAsWholeViews(t *testing.T) {
	const name = "nodeorder.tinygo"
	held := builtPort(t, name)
	if held.Version().Minor < 11 {
		t.Skipf("%s speaks ABI %s; make plugins builds it with this SDK", name, held.Version())
	}
	full := func() float64 { return testutil.ToFloat64(ViewObjectsSent.WithLabelValues(name, "full")) }
	kept := func() float64 { return testutil.ToFloat64(ViewObjectsSent.WithLabelValues(name, "unchanged")) }
	enabled := true
	cfg := &conf.Config{Tiers: []conf.Tier{{Plugins: []conf.PluginOption{{Name: name, EnabledNodeOrder: &enabled}}}}}
	scores := func(p *Plugin, ci *api.ClusterInfo) map[api.TaskID][]float64 {
		ssn, err := framework.OpenSession(cloningCache{ci}, framework.Registry{name: Factory(name, p, Policy{})}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer ssn.Close()
		out := map[api.TaskID][]float64{}
		for _, j := range ssn.JobList {
			for id, task := range j.TaskStatusIndex[api.Pending] {
				s := make([]float64, len(ssn.NodeList))
				if err := ssn.BatchNodeOrderFn(task, ssn.NodeList, s); err != nil {
					t.Fatal(err)
				}
				out[id] = s
			}
		}
		return out
	}
	for seed := range uint64(4) {
		c := newMemoCluster(100 + seed)
		for round := range 12 {
			fullBefore, keptBefore := full(), kept()
			got := scores(held, c.ci)
			if round > 0 && full() != fullBefore {
				t.Errorf("seed %d round %d: %v objects sent in whole lists, want none after the first session", seed, round, full()-fullBefore)
			}
			if round > 0 && kept() == keptBefore {
				t.Errorf("seed %d round %d: nothing kept", seed, round)
			}
			fresh, err := Load(context.Background(), filepath.Join("..", "build", "plugins", name+".wasm"), Options{Name: name})
			if err != nil {
				t.Fatal(err)
			}
			if want := scores(fresh, c.ci); !maps.EqualFunc(got, want, slices.Equal[[]float64]) {
				t.Errorf("seed %d round %d: scores %v with kept runs, %v with the whole view", seed, round, got, want)
			}
			_ = fresh.Close(context.Background())
			for range 1 + c.rng.IntN(3) {
				c.change()
			}
		}
	}
}
