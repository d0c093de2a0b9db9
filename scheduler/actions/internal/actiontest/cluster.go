// Package actiontest builds small clusters, runs a real session with the
// native actions and a handful of test plugins over them, and records what a
// user would observe: binds, evictions, PodGroup phases. It is the actions'
// shared test harness, in the manner of net/http/httptest.
package actiontest

import (
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/scheduler"
	"github.com/caldera-scheduler/caldera/scheduler/actions"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/conf"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// epoch makes creation times deterministic: objects created later in a test
// are younger.
var epoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// Cluster is a snapshot under construction and, after Run, the state the
// session left it in.
type Cluster struct {
	Info *api.ClusterInfo
	tick int
}

// NewCluster returns an empty cluster.
func NewCluster() *Cluster { return &Cluster{Info: api.NewClusterInfo()} }

func (c *Cluster) next() metav1.Time {
	c.tick++
	return metav1.NewTime(epoch.Add(time.Duration(c.tick) * time.Second))
}

func resources(cpu, mem string) v1.ResourceList {
	return v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu), v1.ResourceMemory: resource.MustParse(mem)}
}

// Node adds a ready node with the given allocatable cpu, memory and pods.
func (c *Cluster) Node(name, cpu, mem string, pods int, labels ...string) *Cluster {
	alloc := resources(cpu, mem)
	alloc[v1.ResourcePods] = *resource.NewQuantity(int64(pods), resource.DecimalSI)
	l := map[string]string{}
	for i := 0; i+1 < len(labels); i += 2 {
		l[labels[i]] = labels[i+1]
	}
	node := &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: l},
		Status:     v1.NodeStatus{Allocatable: alloc, Capacity: alloc},
	}
	c.Info.Nodes[name] = api.NewNodeInfo(node)
	c.Info.NodeList = append(c.Info.NodeList, name)
	return c
}

// Queue adds a queue.
func (c *Cluster) Queue(name string, weight int32) *Cluster {
	q := &v1beta1.Queue{
		ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: c.next()},
		Spec:       v1beta1.QueueSpec{Weight: weight},
	}
	c.Info.Queues[api.QueueID(name)] = api.NewQueueInfo(q)
	return c
}

// Job adds a PodGroup "ns/name" in a queue with a minimum member count and a
// phase; priority orders jobs under the test priority plugin.
func (c *Cluster) Job(name, queue string, minMember int32, phase v1beta1.PodGroupPhase, priority int32) *api.JobInfo {
	pg := &v1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, CreationTimestamp: c.next()},
		Spec:       v1beta1.PodGroupSpec{MinMember: minMember, Queue: queue},
		Status:     v1beta1.PodGroupStatus{Phase: phase},
	}
	job := api.NewJobInfo(api.JobID("ns/" + name))
	job.SetPodGroup(pg)
	job.Priority = priority
	c.Info.Jobs[job.UID] = job
	return job
}

// Pod adds a pod of a job. With node set, it runs there; otherwise it is
// pending. An empty cpu and memory make it best-effort.
func (c *Cluster) Pod(job *api.JobInfo, name, cpu, mem, node string, priority int32) *api.TaskInfo {
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "ns", Name: name, UID: types.UID("ns/" + name), CreationTimestamp: c.next(),
			Annotations: map[string]string{api.GroupNameAnnotation: job.Name},
		},
		Spec: v1.PodSpec{NodeName: node, Priority: &priority},
	}
	var req v1.ResourceList
	if cpu != "" || mem != "" {
		req = resources(cpu, mem)
	}
	pod.Spec.Containers = []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: req}}}
	if node != "" {
		pod.Status.Phase = v1.PodRunning
	} else {
		pod.Status.Phase = v1.PodPending
	}
	t := api.NewTaskInfo(pod)
	job.AddTaskInfo(t)
	if node != "" {
		c.Info.Nodes[node].AddTask(t)
	}
	return t
}

// Task finds a task by pod name.
func (c *Cluster) Task(name string) *api.TaskInfo {
	for _, j := range c.Info.Jobs {
		if t, ok := j.Tasks[api.TaskID("ns/"+name)]; ok {
			return t
		}
	}
	return nil
}

// Result is what a session did, as the cluster would see it.
type Result struct {
	// Binds maps pod name to node.
	Binds map[string]string
	// Evicted lists evicted pod names, sorted.
	Evicted []string
	// Phases maps PodGroup name to its phase after the session.
	Phases map[string]v1beta1.PodGroupPhase
}

// Cache is a framework.Cache over a prepared snapshot that records what the
// session asks of it.
type Cache struct {
	cluster *api.ClusterInfo
	mu      sync.Mutex
	result  Result
}

var _ framework.Cache = (*Cache)(nil)

// NewCache serves the cluster as the snapshot.
func NewCache(info *api.ClusterInfo) *Cache {
	return &Cache{cluster: info, result: Result{Binds: map[string]string{}, Phases: map[string]v1beta1.PodGroupPhase{}}}
}

func (c *Cache) Snapshot() *api.ClusterInfo { return c.cluster }

func (c *Cache) Bind(task *api.TaskInfo, node string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.result.Binds[task.Name] = node
	return nil
}

func (c *Cache) Evict(task *api.TaskInfo, reason string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.result.Evicted = append(c.result.Evicted, task.Name)
	return nil
}

func (c *Cache) UpdateJobStatus(job *api.JobInfo, changed bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.result.Phases[job.Name] = job.PodGroup.Status.Phase
}

// Run parses the configuration, runs one session of its actions over the
// cluster with the test plugins, and returns what the session did.
func Run(t testing.TB, c *Cluster, config string) Result {
	t.Helper()
	plugins := Plugins()
	acts := actions.Registry()
	cfg, err := conf.Parse([]byte(config), "test", framework.Validator{Plugins: plugins, Actions: acts})
	if err != nil {
		t.Fatalf("configuration: %v", err)
	}
	cache := NewCache(c.Info)
	if err := scheduler.New(cache, plugins, acts, cfg).RunOnce(); err != nil {
		t.Fatalf("session: %v", err)
	}
	sort.Strings(cache.result.Evicted)
	checkAccounting(t, c.Info)
	return cache.result
}

// checkAccounting fails the test when a node's resource sums no longer match
// the tasks it holds: a decision, or the undoing of one, went wrong.
func checkAccounting(t testing.TB, info *api.ClusterInfo) {
	t.Helper()
	for _, name := range info.NodeList {
		n := info.Nodes[name]
		idle, releasing, pipelined := n.Allocatable.Clone(), api.EmptyResource(), api.EmptyResource()
		for _, task := range n.Tasks {
			switch task.Status {
			case api.Pipelined:
				pipelined.Add(task.Resreq)
			case api.Releasing:
				releasing.Add(task.Resreq)
				idle.Sub(task.Resreq)
			default:
				idle.Sub(task.Resreq)
			}
		}
		for _, c := range []struct {
			what      string
			got, want *api.Resource
		}{{"idle", n.Idle, idle}, {"releasing", n.Releasing, releasing}, {"pipelined", n.Pipelined, pipelined}} {
			if c.got.MilliCPU != c.want.MilliCPU || c.got.Memory != c.want.Memory {
				t.Errorf("node %s %s is <%v>, its tasks say <%v>", name, c.what, c.got, c.want)
			}
		}
	}
}

// String renders a result compactly for failure messages.
func (r Result) String() string {
	return fmt.Sprintf("binds=%v evicted=%v phases=%v", r.Binds, r.Evicted, r.Phases)
}

// SetStatus moves a task to a status, keeping its job's and node's
// accounting right (a running task set Releasing, for instance).
func (c *Cluster) SetStatus(name string, status api.TaskStatus) {
	t := c.Task(name)
	node := c.Info.Nodes[t.NodeName]
	if node != nil {
		node.RemoveTask(t)
	}
	c.Info.Jobs[t.Job].UpdateTaskStatus(t, status)
	if node != nil {
		node.AddTask(t)
	}
}
