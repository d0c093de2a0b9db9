package allocate_test

import (
	"fmt"
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

// The benchmark's own cache and plugins: minimal stand-ins for Volcano's
// default plugins, so that the numbers measure the actions and the framework
// rather than any plugin.

type benchCache struct {
	info  *api.ClusterInfo
	binds int
}

func (c *benchCache) Snapshot() *api.ClusterInfo                      { return c.info }
func (c *benchCache) Bind(*api.TaskInfo, string) error                { c.binds++; return nil }
func (c *benchCache) Evict(*api.TaskInfo, string) error               { return nil }
func (c *benchCache) UpdateJobStatus(*api.JobInfo, bool)              {}
func (stubBase) OnSessionOpen(*framework.Session)                     {}
func (stubBase) OnSessionClose(*framework.Session)                    {}
func (stubGang) Name() string                                         { return "gang" }
func (stubGang) JobReady(j *api.JobInfo) bool                         { return j.IsReady() }
func (stubPriority) Name() string                                     { return "priority" }
func (stubPriority) JobOrder(l, r *api.JobInfo) int                   { return int(r.Priority - l.Priority) }
func (stubPriority) TaskOrder(l, r *api.TaskInfo) int                 { return int(r.Priority - l.Priority) }
func (stubPredicates) Name() string                                   { return "predicates" }
func (stubProportion) Name() string                                   { return "proportion" }
func (stubProportion) Overused(*api.QueueInfo) bool                   { return false }
func (stubProportion) Allocatable(*api.QueueInfo, *api.TaskInfo) bool { return true }
func (stubNodeOrder) Name() string                                    { return "nodeorder" }

type stubBase struct{}
type stubGang struct{ stubBase }
type stubPriority struct{ stubBase }
type stubPredicates struct{ stubBase }
type stubProportion struct{ stubBase }
type stubNodeOrder struct{ stubBase }

func (stubGang) JobValid(j *api.JobInfo) *framework.ValidateResult {
	if j.ValidTaskNum() < j.MinAvailable {
		return &framework.ValidateResult{Reason: "NotEnoughPods"}
	}
	return nil
}

func (stubGang) JobPipelined(j *api.JobInfo) framework.Vote {
	if j.IsPipelined() {
		return framework.Permit
	}
	return framework.Reject
}

var tooManyPods = framework.NewStatus(framework.Unschedulable, "Too many pods")

func (stubPredicates) Predicate(t *api.TaskInfo, n *api.NodeInfo) *framework.Status {
	if len(n.Tasks) >= n.Allocatable.MaxTaskNum {
		return tooManyPods
	}
	return nil
}

// Least-allocated scoring as a map plugin with a max-normalising reducer, the
// shape of Volcano's nodeorder plugin.
func (stubNodeOrder) NodeMap(t *api.TaskInfo, n *api.NodeInfo) (float64, error) {
	cpu := (n.Idle.MilliCPU - t.Resreq.MilliCPU) / n.Allocatable.MilliCPU
	mem := (n.Idle.Memory - t.Resreq.Memory) / n.Allocatable.Memory
	return 50 * (cpu + mem), nil
}

func (stubNodeOrder) NodeReduce(_ *api.TaskInfo, scores []framework.NodeScore) error {
	max := 0.0
	for _, s := range scores {
		if s.Score > max {
			max = s.Score
		}
	}
	if max == 0 {
		return nil
	}
	for i := range scores {
		scores[i].Score = scores[i].Score * 100 / max
	}
	return nil
}

func stubRegistry() framework.Registry {
	r := framework.NewRegistry()
	for _, p := range []framework.Plugin{stubGang{}, stubPriority{}, stubPredicates{}, stubProportion{}, stubNodeOrder{}} {
		p := p
		if err := r.Register(p.Name(), func(framework.Arguments) (framework.Plugin, error) { return p, nil }); err != nil {
			panic(err)
		}
	}
	return r
}

const benchConfig = `actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: predicates
  - name: proportion
  - name: nodeorder
`

// benchCluster builds nodes of 32 cpu, 128Gi, 110 pods and gangs of ten
// pending 1-cpu, 2Gi pods sharing a template, in one queue.
func benchCluster(nodes, gangs int) *api.ClusterInfo {
	info := api.NewClusterInfo()
	alloc := v1.ResourceList{
		v1.ResourceCPU:    resource.MustParse("32"),
		v1.ResourceMemory: resource.MustParse("128Gi"),
		v1.ResourcePods:   resource.MustParse("110"),
	}
	for i := 0; i < nodes; i++ {
		name := fmt.Sprintf("node-%05d", i)
		info.Nodes[name] = api.NewNodeInfo(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: v1.NodeStatus{Allocatable: alloc, Capacity: alloc}})
		info.NodeList = append(info.NodeList, name)
	}
	info.Queues["default"] = api.NewQueueInfo(&v1beta1.Queue{ObjectMeta: metav1.ObjectMeta{Name: "default"}, Spec: v1beta1.QueueSpec{Weight: 1}})
	created := metav1.NewTime(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	spec := v1.PodSpec{Containers: []v1.Container{{Name: "main", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{
		v1.ResourceCPU: resource.MustParse("1"), v1.ResourceMemory: resource.MustParse("2Gi"),
	}}}}}
	for g := 0; g < gangs; g++ {
		name := fmt.Sprintf("gang-%04d", g)
		job := api.NewJobInfo(api.JobID("bench/" + name))
		job.SetPodGroup(&v1beta1.PodGroup{
			ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: name, CreationTimestamp: created},
			Spec:       v1beta1.PodGroupSpec{MinMember: 10, Queue: "default"},
		})
		for p := 0; p < 10; p++ {
			pod := &v1.Pod{
				ObjectMeta: metav1.ObjectMeta{
					Namespace: "bench", Name: fmt.Sprintf("%s-worker-%d", name, p), UID: types.UID(fmt.Sprintf("%s-%d", name, p)),
					CreationTimestamp: created, Annotations: map[string]string{api.GroupNameAnnotation: name, api.TaskSpecKey: "worker"},
				},
				Spec:   spec,
				Status: v1.PodStatus{Phase: v1.PodPending},
			}
			job.AddTaskInfo(api.NewTaskInfo(pod))
		}
		info.Jobs[job.UID] = job
	}
	return info
}

func runBench(b *testing.B, nodes, gangs int) {
	plugins, acts := stubRegistry(), actions.Registry()
	cfg, err := conf.Parse([]byte(benchConfig), "bench", framework.Validator{Plugins: plugins, Actions: acts})
	if err != nil {
		b.Fatal(err)
	}
	pods := gangs * 10
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		cache := &benchCache{info: benchCluster(nodes, gangs)}
		s := scheduler.New(cache, plugins, acts, cfg)
		b.StartTimer()
		if err := s.RunOnce(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if cache.binds != pods {
			b.Fatalf("bound %d pods, want %d", cache.binds, pods)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(pods)*float64(b.N)/b.Elapsed().Seconds(), "pods/s")
}

// BenchmarkAllocate is the headline session: enqueue, allocate and backfill
// over 5,000 nodes and 10,000 pending pods in 1,000 gangs of ten; the
// smaller sizes show how it scales.
func BenchmarkAllocate(b *testing.B) {
	for _, size := range []struct{ nodes, gangs int }{{1250, 250}, {2500, 500}, {5000, 1000}} {
		b.Run(fmt.Sprintf("nodes=%d/pods=%d", size.nodes, size.gangs*10), func(b *testing.B) {
			runBench(b, size.nodes, size.gangs)
		})
	}
}
