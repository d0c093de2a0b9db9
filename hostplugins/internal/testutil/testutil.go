// Package testutil builds small clusters and sessions for the native plugins'
// tests: manifests in, an open framework.Session out, with a cache that
// records what the session asked of the cluster.
package testutil

import (
	"fmt"
	"sort"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/conf"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Res builds a ResourceList from name/quantity pairs:
// Res("cpu", "2", "memory", "4Gi").
func Res(pairs ...string) v1.ResourceList {
	if len(pairs)%2 != 0 {
		panic("testutil.Res: odd number of arguments")
	}
	rl := v1.ResourceList{}
	for i := 0; i < len(pairs); i += 2 {
		rl[v1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return rl
}

// Node returns a Ready node whose capacity and allocatable are rl.
func Node(name string, rl v1.ResourceList) *v1.Node {
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Status: v1.NodeStatus{
			Capacity:    rl.DeepCopy(),
			Allocatable: rl.DeepCopy(),
			Conditions:  []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}},
		},
	}
}

// Queue returns an open queue with a weight.
func Queue(name string, weight int32) *v1beta1.Queue {
	return &v1beta1.Queue{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       v1beta1.QueueSpec{Weight: weight},
		Status:     v1beta1.QueueStatus{State: v1beta1.QueueStateOpen},
	}
}

// PodGroup returns a PodGroup in a queue with a minimum member count and a
// phase.
func PodGroup(ns, name, queue string, minMember int32, phase v1beta1.PodGroupPhase) *v1beta1.PodGroup {
	return &v1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       v1beta1.PodGroupSpec{MinMember: minMember, Queue: queue},
		Status:     v1beta1.PodGroupStatus{Phase: phase},
	}
}

// Pod returns a pod of a PodGroup. With a node it is running there; without
// one it is pending.
func Pod(ns, name, group, node string, req v1.ResourceList) *v1.Pod {
	phase := v1.PodPending
	if node != "" {
		phase = v1.PodRunning
	}
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:   ns,
			Name:        name,
			UID:         types.UID(ns + "-" + name),
			Annotations: map[string]string{api.GroupNameAnnotation: group},
		},
		Spec: v1.PodSpec{
			NodeName:      node,
			SchedulerName: "volcano",
			Containers:    []v1.Container{{Name: "main", Resources: v1.ResourceRequirements{Requests: req}}},
		},
		Status: v1.PodStatus{Phase: phase},
	}
}

// Cluster is a set of manifests to snapshot.
type Cluster struct {
	Queues    []*v1beta1.Queue
	Nodes     []*v1.Node
	PodGroups []*v1beta1.PodGroup
	Pods      []*v1.Pod
}

// Build turns the manifests into the scheduler's view, as the cache would:
// every pod joins its PodGroup's job and, when it has a node, holds that
// node's resources. A pod whose PodGroup is missing is an error.
func (c Cluster) Build() (*api.ClusterInfo, error) {
	ci := api.NewClusterInfo()
	for _, q := range c.Queues {
		qi := api.NewQueueInfo(q)
		ci.Queues[qi.UID] = qi
	}
	for _, n := range c.Nodes {
		ci.Nodes[n.Name] = api.NewNodeInfo(n)
		ci.NodeList = append(ci.NodeList, n.Name)
	}
	sort.Strings(ci.NodeList)
	for _, pg := range c.PodGroups {
		j := api.NewJobInfo(api.JobID(pg.Namespace + "/" + pg.Name))
		j.SetPodGroup(pg)
		ci.Jobs[j.UID] = j
	}
	for _, p := range c.Pods {
		t := api.NewTaskInfo(p)
		j, ok := ci.Jobs[t.Job]
		if !ok {
			return nil, fmt.Errorf("pod %s: no PodGroup %q", t.Key(), t.Job)
		}
		j.AddTaskInfo(t)
		if t.NodeName == "" {
			continue
		}
		n, ok := ci.Nodes[t.NodeName]
		if !ok {
			return nil, fmt.Errorf("pod %s: no node %q", t.Key(), t.NodeName)
		}
		n.AddTask(t)
	}
	return ci, nil
}

// Cache is a framework.Cache over a fixed snapshot that records the session's
// requests instead of sending them.
type Cache struct {
	Cluster *api.ClusterInfo
	// Binds maps "ns/pod" to the node it was bound to.
	Binds map[string]string
	// Evictions lists evicted pods as "ns/pod".
	Evictions []string
	// StatusUpdates lists the jobs whose status was written at close.
	StatusUpdates []api.JobID
	// Events lists the plugins' PodGroup Events as
	// "ns/podgroup type reason message".
	Events []string
	// NumaSets holds the CPU sets handed over at close, by node, added up
	// over sessions.
	NumaSets map[string]api.NumaSets
}

var (
	_ framework.Cache                 = &Cache{}
	_ framework.PodGroupEventRecorder = &Cache{}
	_ framework.NumaSetsWriter        = &Cache{}
)

// Snapshot returns the cluster as built; each session gets the same objects.
func (c *Cache) Snapshot() *api.ClusterInfo { return c.Cluster }

// Bind records a bind.
func (c *Cache) Bind(task *api.TaskInfo, node string) error {
	if c.Binds == nil {
		c.Binds = map[string]string{}
	}
	c.Binds[task.Key()] = node
	return nil
}

// Evict records an eviction.
func (c *Cache) Evict(task *api.TaskInfo, _ string) error {
	c.Evictions = append(c.Evictions, task.Key())
	return nil
}

// UpdateJobStatus records a status write.
func (c *Cache) UpdateJobStatus(job *api.JobInfo, _ bool) {
	c.StatusUpdates = append(c.StatusUpdates, job.UID)
}

// RecordPodGroupEvent records a plugin's Event.
func (c *Cache) RecordPodGroupEvent(pg *v1beta1.PodGroup, eventType, reason, message string) {
	c.Events = append(c.Events, pg.Namespace+"/"+pg.Name+" "+eventType+" "+reason+" "+message)
}

// UpdateNumaSets records the CPU sets a session assigned.
func (c *Cache) UpdateNumaSets(assigned map[string]api.NumaSets) {
	if c.NumaSets == nil {
		c.NumaSets = map[string]api.NumaSets{}
	}
	for node, sets := range assigned {
		if c.NumaSets[node] == nil {
			c.NumaSets[node] = api.NumaSets{}
		}
		for res, set := range sets {
			c.NumaSets[node][res] = c.NumaSets[node][res].Union(set)
		}
	}
}

// Tier is the YAML for a one-tier configuration that enables every hook of
// the named plugins.
func Tier(plugins ...string) string {
	s := "actions: \"allocate\"\ntiers:\n- plugins:\n"
	for _, p := range plugins {
		s += "  - name: " + p + "\n"
	}
	return s
}

// Open builds the cluster and opens a session on it with the plugins of
// registry and the configuration in yaml. Tests that look at what closing
// does call ssn.Close themselves.
func Open(t testing.TB, c Cluster, registry framework.Registry, yaml string) (*framework.Session, *Cache) {
	t.Helper()
	ci, err := c.Build()
	if err != nil {
		t.Fatalf("building cluster: %v", err)
	}
	return OpenOn(t, ci, registry, yaml)
}

// OpenOn opens a session on an already built snapshot, so that a test can
// adjust it first (job priorities, for instance).
func OpenOn(t testing.TB, ci *api.ClusterInfo, registry framework.Registry, yaml string) (*framework.Session, *Cache) {
	t.Helper()
	cfg, err := conf.Parse([]byte(yaml), t.Name(), nil)
	if err != nil {
		t.Fatalf("parsing configuration: %v", err)
	}
	cache := &Cache{Cluster: ci}
	ssn, err := framework.OpenSession(cache, registry, cfg)
	if err != nil {
		t.Fatalf("opening session: %v", err)
	}
	return ssn, cache
}

// Registry returns a registry holding the given factories by name.
func Registry(t testing.TB, factories map[string]framework.Factory) framework.Registry {
	t.Helper()
	r := framework.NewRegistry()
	for name, f := range factories {
		if err := r.Register(name, f); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// Job returns the session's job "ns/name" or fails the test.
func Job(t testing.TB, ssn *framework.Session, id string) *api.JobInfo {
	t.Helper()
	j, ok := ssn.Jobs[api.JobID(id)]
	if !ok {
		t.Fatalf("job %s is not in the session", id)
	}
	return j
}

// Task returns the session's task "ns/pod" or fails the test.
func Task(t testing.TB, ssn *framework.Session, key string) *api.TaskInfo {
	t.Helper()
	for _, j := range ssn.Jobs {
		for _, task := range j.Tasks {
			if task.Key() == key {
				return task
			}
		}
	}
	t.Fatalf("task %s is not in the session", key)
	return nil
}

// Keys returns the tasks' "ns/pod" keys, sorted, for comparing victim sets.
func Keys(tasks []*api.TaskInfo) []string {
	out := make([]string, 0, len(tasks))
	for _, t := range tasks {
		out = append(out, t.Key())
	}
	sort.Strings(out)
	return out
}

// Instance returns the session's instance of a plugin type, so that a test
// can look at the state a plugin computed, or fails the test.
func Instance[T framework.Plugin](t testing.TB, ssn *framework.Session) T {
	t.Helper()
	for _, p := range ssn.Plugins() {
		if inst, ok := p.(T); ok {
			return inst
		}
	}
	var zero T
	t.Fatalf("no %T plugin in the session", zero)
	return zero
}

// WithPriority sets a pod's priority and returns it.
func WithPriority(p *v1.Pod, prio int32) *v1.Pod {
	p.Spec.Priority = &prio
	return p
}
