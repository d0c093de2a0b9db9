package cache

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stypes "k8s.io/apimachinery/pkg/types"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"
	vcfake "volcano.sh/apis/pkg/client/clientset/versioned/fake"

	"github.com/caldera-scheduler/caldera/scheduler/api"
)

func testNode(name, cpu string) *v1.Node {
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Status: v1.NodeStatus{Allocatable: v1.ResourceList{
			v1.ResourceCPU: resource.MustParse(cpu), v1.ResourcePods: resource.MustParse("110"),
		}},
	}
}

func testPod(name, scheduler, node, cpu string) *v1.Pod {
	phase := v1.PodPending
	if node != "" {
		phase = v1.PodRunning
	}
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: k8stypes.UID("uid-" + name)},
		Spec: v1.PodSpec{SchedulerName: scheduler, NodeName: node, Containers: []v1.Container{{
			Name: "c", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu)}},
		}}},
		Status: v1.PodStatus{Phase: phase},
	}
}

// startCache runs a cache over fake clientsets holding objs and waits until
// it has synced.
func startCache(t *testing.T, opts Options, kubeObjs []runtime.Object, vcObjs ...runtime.Object) *Cache {
	t.Helper()
	if opts.Client == nil {
		opts.Client = k8sfake.NewSimpleClientset(kubeObjs...)
	}
	opts.VCClient = vcfake.NewSimpleClientset(vcObjs...)
	c, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := c.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if !c.WaitForCacheSync(ctx) {
		t.Fatal("cache did not sync")
	}
	return c
}

// eventually polls cond for up to five seconds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting until %s", what)
}

// A pod of another scheduler is not scheduled, but its node counts it; a
// plain pod of ours becomes a job of its own in the default queue. The cache
// creates that queue and the root queue, open, as Volcano's scheduler does.
func TestSnapshotCountsForeignPodsAndWrapsPlainPods(t *testing.T) {
	c := startCache(t, Options{}, []runtime.Object{
		testNode("n1", "4"),
		testPod("foreign", "default-scheduler", "n1", "3"),
		testPod("plain", DefaultSchedulerName, "", "1"),
	})
	var snap *api.ClusterInfo
	eventually(t, "the root and default queues and both pods are in the snapshot", func() bool {
		snap = c.Snapshot()
		return len(snap.Queues) == 2 && len(snap.Jobs) == 1 && snap.Nodes["n1"] != nil && len(snap.Nodes["n1"].Tasks) == 1
	})
	for name, reclaimable := range map[string]bool{RootQueue: false, DefaultQueue: true} {
		q, err := c.opts.VCClient.SchedulingV1beta1().Queues().Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("queue %s: %v", name, err)
		}
		if q.Spec.Weight != 1 || q.Spec.Reclaimable == nil || *q.Spec.Reclaimable != reclaimable || q.Status.State != v1beta1.QueueStateOpen {
			t.Errorf("queue %s: weight %d, reclaimable %v, state %q; want 1, %v, Open", name, q.Spec.Weight, q.Spec.Reclaimable, q.Status.State, reclaimable)
		}
	}
	if idle := snap.Nodes["n1"].Idle.MilliCPU; idle != 1000 {
		t.Errorf("n1 idle cpu %v, want 1000 (the foreign pod holds 3 of 4)", idle)
	}
	for _, j := range snap.Jobs {
		if j.Queue != DefaultQueue || j.MinAvailable != 1 || len(j.Tasks) != 1 {
			t.Errorf("plain pod's job: queue %q, minAvailable %d, %d tasks; want default, 1, 1", j.Queue, j.MinAvailable, len(j.Tasks))
		}
		if j.PodGroup.Status.Phase != v1beta1.PodGroupPending {
			t.Errorf("plain pod's job phase %q, want Pending", j.PodGroup.Status.Phase)
		}
	}
}

// failingBinder refuses the first n binds and counts the others. With a
// gate, each bind waits until the gate is closed.
type failingBinder struct {
	failures atomic.Int32
	bound    atomic.Int32
	entered  atomic.Int32 // binds started, before the gate
	gate     chan struct{}
}

func (b *failingBinder) Bind(context.Context, BindRequest) error {
	b.entered.Add(1)
	if b.gate != nil {
		<-b.gate
	}
	if b.failures.Add(-1) >= 0 {
		return errors.New("conflict: node is gone")
	}
	b.bound.Add(1)
	return nil
}

// onlyTask waits for the cache's one pod and returns the snapshot's task.
func onlyTask(t *testing.T, c *Cache) *api.TaskInfo {
	t.Helper()
	var task *api.TaskInfo
	eventually(t, "the pod is in the snapshot", func() bool {
		for _, j := range c.Snapshot().Jobs {
			for _, tk := range j.Tasks {
				task = tk
			}
		}
		return task != nil
	})
	return task
}

// A refused bind is undone: the pod is pending again in the next snapshot,
// its node's resources are free, and nothing was written to the pod.
func TestFailedBindIsUndone(t *testing.T) {
	// The gate holds the bind worker until the test has looked at the
	// cache right after Bind: a refusal undone first would fail that look.
	binder := &failingBinder{gate: make(chan struct{})}
	binder.failures.Store(1)
	events := record.NewFakeRecorder(10)
	c := startCache(t, Options{Binder: binder, Recorder: events}, []runtime.Object{testNode("n1", "4"), testPod("p", DefaultSchedulerName, "", "1")})
	task := onlyTask(t, c)
	if err := c.Bind(task, "n1"); err != nil {
		t.Fatal(err)
	}
	if n := c.Snapshot().Nodes["n1"]; n.Idle.MilliCPU != 3000 {
		t.Fatalf("right after Bind the node should hold the pod: idle %v", n.Idle.MilliCPU)
	}
	close(binder.gate)
	c.Flush()
	select {
	case ev := <-events.Events:
		if want := "Warning FailedScheduling failed to bind to node n1: conflict: node is gone"; ev != want {
			t.Errorf("event %q, want %q", ev, want)
		}
	default:
		t.Error("a refused bind left no Event on the pod")
	}
	snap := c.Snapshot()
	if n := snap.Nodes["n1"]; n.Idle.MilliCPU != 4000 || len(n.Tasks) != 0 {
		t.Errorf("after the refused bind n1 has idle %v and %d tasks; want 4000 and 0", n.Idle.MilliCPU, len(n.Tasks))
	}
	for _, j := range snap.Jobs {
		for _, tk := range j.Tasks {
			if tk.Status != api.Pending || tk.NodeName != "" {
				t.Errorf("pod is %s on %q after the refused bind, want Pending on no node", tk.Status, tk.NodeName)
			}
		}
	}
	// The pod can be bound again, and this time the bind goes out.
	if err := c.Bind(task, "n1"); err != nil {
		t.Fatal(err)
	}
	c.Flush()
	if binder.bound.Load() != 1 {
		t.Errorf("%d binds went out after the retry, want 1", binder.bound.Load())
	}
	if err := c.Bind(task, "n1"); err == nil {
		t.Error("binding a pod that is already binding was accepted")
	}
}

// startOneJob starts a cache with one node and one pending pod, in the
// PodGroup "pg" (Pending, minMember 1) or, without withPodGroup, alone,
// and returns the cache and the pod's job once a snapshot shows it.
func startOneJob(t *testing.T, opts Options, withPodGroup bool) (*Cache, *api.JobInfo) {
	t.Helper()
	pod := testPod("p", DefaultSchedulerName, "", "1")
	var vcObjs []runtime.Object
	if withPodGroup {
		pod.Annotations = map[string]string{api.GroupNameAnnotation: "pg"}
		vcObjs = append(vcObjs, &v1beta1.PodGroup{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pg", UID: "pg-uid"},
			Spec:       v1beta1.PodGroupSpec{MinMember: 1, Queue: DefaultQueue},
			Status:     v1beta1.PodGroupStatus{Phase: v1beta1.PodGroupPending},
		})
	}
	c := startCache(t, opts, []runtime.Object{testNode("n1", "4"), pod}, vcObjs...)
	var job *api.JobInfo
	eventually(t, "the pod's job is in the snapshot", func() bool {
		for _, j := range c.Snapshot().Jobs {
			job = j
		}
		return job != nil && len(job.Tasks) == 1
	})
	return c, job
}

// PodGroup status travels in a plain update (Volcano's CRD has no status
// subresource) and is read back by the next snapshot before the informer
// reports it.
func TestPodGroupStatusIsWritten(t *testing.T) {
	c, job := startOneJob(t, Options{}, true)
	job.PodGroup.Status.Phase = v1beta1.PodGroupInqueue
	c.UpdateJobStatus(job, true)
	c.Flush() // status writes run on the bind workers
	got, err := c.opts.VCClient.SchedulingV1beta1().PodGroups("ns").Get(context.Background(), "pg", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.Phase != v1beta1.PodGroupInqueue {
		t.Errorf("API PodGroup phase %q, want Inqueue", got.Status.Phase)
	}
	for _, j := range c.Snapshot().Jobs {
		if j.PodGroup.Status.Phase != v1beta1.PodGroupInqueue {
			t.Errorf("next snapshot sees phase %q, want Inqueue", j.PodGroup.Status.Phase)
		}
	}
}

// recordingStatus holds its first PodGroup write until released and
// records the phase of every write.
type recordingStatus struct {
	APIStatusUpdater
	release chan struct{}
	mu      sync.Mutex
	phases  []v1beta1.PodGroupPhase
}

func (r *recordingStatus) UpdatePodPending(context.Context, *v1.Pod, PodPending) error {
	return nil
}

func (r *recordingStatus) UpdatePodGroupStatus(ctx context.Context, pg *v1beta1.PodGroup) error {
	r.mu.Lock()
	first := len(r.phases) == 0
	r.phases = append(r.phases, pg.Status.Phase)
	r.mu.Unlock()
	if first {
		<-r.release
	}
	return nil
}

// Status writes run off the session's goroutine; while one PodGroup's write
// is in flight, later ones wait, and only the latest of them is sent.
func TestStatusWritesKeepTheLatest(t *testing.T) {
	rec := &recordingStatus{release: make(chan struct{})}
	c, job := startOneJob(t, Options{StatusUpdater: rec}, true)
	for i, phase := range []v1beta1.PodGroupPhase{v1beta1.PodGroupInqueue, v1beta1.PodGroupRunning, v1beta1.PodGroupUnknown, v1beta1.PodGroupCompleted} {
		job.PodGroup.Status.Phase = phase
		c.UpdateJobStatus(job, true) // returns without waiting for the held write
		if i == 0 {
			eventually(t, "the first write is in flight", func() bool {
				rec.mu.Lock()
				defer rec.mu.Unlock()
				return len(rec.phases) == 1
			})
		}
	}
	close(rec.release)
	c.Flush()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if want := []v1beta1.PodGroupPhase{v1beta1.PodGroupInqueue, v1beta1.PodGroupCompleted}; !reflect.DeepEqual(rec.phases, want) {
		t.Errorf("writes %v, want %v", rec.phases, want)
	}
}

// recordingConditions holds its first pod condition write until released
// and records the reason of every write.
type recordingConditions struct {
	APIStatusUpdater
	release chan struct{}
	mu      sync.Mutex
	reasons []string
}

func (r *recordingConditions) UpdatePodGroupStatus(context.Context, *v1beta1.PodGroup) error {
	return nil
}

func (r *recordingConditions) UpdatePodPending(_ context.Context, _ *v1.Pod, pp PodPending) error {
	r.mu.Lock()
	first := len(r.reasons) == 0
	r.reasons = append(r.reasons, pp.Message)
	r.mu.Unlock()
	if first {
		<-r.release
	}
	return nil
}

func (r *recordingConditions) written() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.reasons...)
}

// A pod's PodScheduled condition is written once per reason: not again while
// the write is queued or in flight (the next session's snapshot cannot see
// it yet), and a queued write is dropped when the pod already says what the
// latest session decided.
func TestPodConditionWrittenOncePerReason(t *testing.T) {
	rec := &recordingConditions{release: make(chan struct{})}
	events := record.NewFakeRecorder(10)
	c, job := startOneJob(t, Options{StatusUpdater: rec, Recorder: events}, false)
	session := func(reason string) {
		job.JobFitErrors = reason
		c.UpdateJobStatus(job, false)
	}
	session("A")
	eventually(t, "the write of A is in flight", func() bool { return len(rec.written()) == 1 })
	session("A") // in flight: not again
	session("B") // queued behind A
	for _, task := range job.Tasks {
		says := task.Pod.DeepCopy()
		says.Status.Conditions = append(says.Status.Conditions, pendingCondition(PodPending{Reason: api.PodReasonUnschedulable, Message: "C"}))
		task.Pod = says
	}
	session("C") // the pod says C already: B is dropped, nothing written
	close(rec.release)
	c.Flush()
	session("D")
	c.Flush()
	if got, want := rec.written(), []string{"A", "D"}; !reflect.DeepEqual(got, want) {
		t.Errorf("condition writes %q, want %q", got, want)
	}
	// An event per reason sent for writing: B's was decided, then its write
	// dropped.
	var got []string
	for len(events.Events) > 0 {
		got = append(got, <-events.Events)
	}
	if want := []string{"Warning FailedScheduling A", "Warning FailedScheduling B", "Warning FailedScheduling D"}; !reflect.DeepEqual(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
}

// A pod that goes away (deleted here; bound is the same path) while a
// condition write for it waits in the queue is not written: the write would
// fail against a pod that no longer exists or has moved on.
func TestQueuedConditionWriteDroppedWhenPodGoes(t *testing.T) {
	rec := &recordingConditions{release: make(chan struct{})}
	c, job := startOneJob(t, Options{StatusUpdater: rec}, false)
	session := func(reason string) {
		job.JobFitErrors = reason
		c.UpdateJobStatus(job, false)
	}
	session("A")
	eventually(t, "the write of A is in flight", func() bool { return len(rec.written()) == 1 })
	session("B") // queued behind A
	if err := c.opts.Client.CoreV1().Pods("ns").Delete(context.Background(), "p", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the cache saw the delete", func() bool {
		for _, j := range c.Snapshot().Jobs {
			if len(j.Tasks) > 0 {
				return false
			}
		}
		return true
	})
	close(rec.release)
	c.Flush()
	if got, want := rec.written(), []string{"A"}; !reflect.DeepEqual(got, want) {
		t.Errorf("condition writes %q, want %q", got, want)
	}
}

// blockingBinder refuses its first bind and holds the second until released.
type blockingBinder struct {
	calls   atomic.Int32
	release chan struct{}
}

func (b *blockingBinder) Bind(context.Context, BindRequest) error {
	if b.calls.Add(1) == 1 {
		return errors.New("connection refused")
	}
	<-b.release
	return nil
}

// The resync of a failed bind must not undo a newer bind still in flight:
// the pod would look pending and be bound a second time.
func TestResyncKeepsNewerBindInFlight(t *testing.T) {
	binder := &blockingBinder{release: make(chan struct{})}
	client := k8sfake.NewSimpleClientset(testNode("n1", "4"), testPod("p", DefaultSchedulerName, "", "1"))
	// The resync's read of the pod waits until the second bind was sent.
	resyncing, secondSent := make(chan struct{}), make(chan struct{})
	var once sync.Once
	client.PrependReactor("get", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		once.Do(func() {
			close(resyncing)
			<-secondSent
		})
		return false, nil, nil
	})
	c := startCache(t, Options{Client: client, Binder: binder}, nil)
	taskOf := func() *api.TaskInfo {
		for _, j := range c.Snapshot().Jobs {
			for _, tk := range j.Tasks {
				return tk
			}
		}
		return nil
	}
	eventually(t, "the pod is in the snapshot", func() bool { return taskOf() != nil })
	if err := c.Bind(taskOf(), "n1"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the refused bind is undone", func() bool { return binder.calls.Load() == 1 && taskOf().Status == api.Pending })
	<-resyncing
	if err := c.Bind(taskOf(), "n1"); err != nil {
		t.Fatal(err)
	}
	close(secondSent)
	// Give the resync time to finish, then look.
	time.Sleep(100 * time.Millisecond)
	if st := taskOf().Status; st != api.Binding {
		t.Errorf("while the second bind is in flight the pod is %s, want Binding", st)
	}
	close(binder.release)
	c.Flush()
}

// failingStatus fails PodGroup writes while failing is set.
type failingStatus struct {
	APIStatusUpdater
	failing atomic.Bool
}

func (f *failingStatus) UpdatePodGroupStatus(ctx context.Context, pg *v1beta1.PodGroup) error {
	if f.failing.Load() {
		return apierrors.NewServiceUnavailable("the API server is restarting")
	}
	return f.APIStatusUpdater.UpdatePodGroupStatus(ctx, pg)
}

// A PodGroup status write the API server refuses is not assumed done: the
// next snapshot shows the status the API server has, so the next session,
// finding it still to change, writes it again. (Assumed done, a PodGroup
// moved to Inqueue during an API server restart stayed Pending for good,
// and Volcano's job controller never created the job's pods.)
func TestFailedPodGroupStatusWriteIsWrittenAgain(t *testing.T) {
	status := &failingStatus{}
	c, job := startOneJob(t, Options{StatusUpdater: status}, true)
	status.APIStatusUpdater = APIStatusUpdater{Client: c.opts.Client, VCClient: c.opts.VCClient}
	status.failing.Store(true)
	job.PodGroup.Status.Phase = v1beta1.PodGroupInqueue
	c.UpdateJobStatus(job, true)
	c.Flush()
	for _, j := range c.Snapshot().Jobs {
		if j.PodGroup.Status.Phase != v1beta1.PodGroupPending {
			t.Fatalf("after a refused write the snapshot sees phase %q, want the API server's Pending", j.PodGroup.Status.Phase)
		}
	}

	status.failing.Store(false)
	for _, j := range c.Snapshot().Jobs {
		j.PodGroup.Status.Phase = v1beta1.PodGroupInqueue
		c.UpdateJobStatus(j, true) // as the next session's close does
	}
	c.Flush()
	got, err := c.opts.VCClient.SchedulingV1beta1().PodGroups("ns").Get(context.Background(), "pg", metav1.GetOptions{})
	if err != nil || got.Status.Phase != v1beta1.PodGroupInqueue {
		t.Fatalf("API PodGroup after the next session: %v, phase %q; want Inqueue", err, got.Status.Phase)
	}
}

// A Queue status write the API server refuses puts the cache back to the
// queue it has, for the next session to write again; the write runs off
// the session's goroutine.
func TestFailedQueueStatusWriteIsWrittenAgain(t *testing.T) {
	c, _ := startOneJob(t, Options{}, true)
	fake := c.opts.VCClient.(*vcfake.Clientset)
	var refuse atomic.Bool
	refuse.Store(true)
	fake.PrependReactor("update", "queues", func(action k8stesting.Action) (bool, runtime.Object, error) {
		if action.GetSubresource() == "status" && refuse.Load() {
			return true, nil, apierrors.NewServiceUnavailable("the API server is restarting")
		}
		return false, nil, nil
	})
	queue := func() *v1beta1.Queue { return c.Snapshot().Queues[api.QueueID(DefaultQueue)].Queue }
	updated := queue().DeepCopy()
	updated.Status.Allocated = v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")}
	c.UpdateQueueStatus(updated)
	c.Flush()
	if got := queue().Status.Allocated; len(got) != 0 {
		t.Fatalf("after a refused write the snapshot's queue has allocated %v, want the API server's none", got)
	}

	refuse.Store(false)
	again := queue().DeepCopy()
	again.Status.Allocated = v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")}
	c.UpdateQueueStatus(again)
	c.Flush()
	got, err := c.opts.VCClient.SchedulingV1beta1().Queues().Get(context.Background(), DefaultQueue, metav1.GetOptions{})
	if err != nil || got.Status.Allocated.Cpu().String() != "1" {
		t.Fatalf("API queue after the next session: %v, allocated %v; want 1 CPU", err, got.Status.Allocated)
	}
}

// A node forgotten while pods still run on it (an event handler dropped an
// update of it, which the cache sees as a delete; or the node object went
// before its pods) comes back with those pods counted: running pods get no
// event of their own to bring them back. Once its pods go, nothing of the
// node is left.
func TestNodeBackKeepsItsPods(t *testing.T) {
	node, foreign := testNode("n1", "4"), testPod("foreign", "default-scheduler", "n1", "3")
	c := startCache(t, Options{}, []runtime.Object{node, foreign})
	eventually(t, "n1 with its pod is in the snapshot", func() bool {
		n := c.Snapshot().Nodes["n1"]
		return n != nil && len(n.Tasks) == 1
	})
	c.onNodeDelete(node)
	if _, ok := c.Snapshot().Nodes["n1"]; ok {
		t.Fatal("a deleted node is still in the snapshot")
	}
	c.onNode(node)
	n := c.Snapshot().Nodes["n1"]
	if n == nil || len(n.Tasks) != 1 || n.Idle.MilliCPU != 1000 {
		t.Fatalf("n1 back: %+v; want its pod counted, 1000m idle of 4", n)
	}

	c.onNodeDelete(node)
	c.onPodDelete(foreign)
	c.mu.Lock()
	_, left := c.nodes["n1"]
	c.mu.Unlock()
	if left {
		t.Error("the node's placeholder outlived its last pod")
	}
}

// A fenced cache (its replica lost the leader Lease) sends nothing more:
// the bind under way finishes, the ones queued behind it and those made
// afterwards never reach the API server, and Flush does not wait for them.
func TestFencedCacheSendsNothingMore(t *testing.T) {
	binder := &failingBinder{gate: make(chan struct{})}
	c := startCache(t, Options{Binder: binder, BindWorkers: 1}, []runtime.Object{
		testNode("n1", "4"), testPod("a", DefaultSchedulerName, "", "1"), testPod("b", DefaultSchedulerName, "", "1"), testPod("c", DefaultSchedulerName, "", "1"),
	})
	var tasks []*api.TaskInfo
	eventually(t, "the three pods are in the snapshot", func() bool {
		tasks = tasks[:0]
		for _, j := range c.Snapshot().Jobs {
			for _, tk := range j.Tasks {
				tasks = append(tasks, tk)
			}
		}
		return len(tasks) == 3
	})
	for _, tk := range tasks[:2] { // the first runs and waits at the gate, the second is queued
		if err := c.Bind(tk, "n1"); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "the first bind is under way", func() bool { return binder.entered.Load() == 1 })
	c.Fence()
	if err := c.Bind(tasks[2], "n1"); err != nil {
		t.Fatal(err)
	}
	close(binder.gate)
	c.Flush()
	if n := binder.bound.Load(); n != 1 {
		t.Errorf("%d binds sent after the fence, want 1 (the one already under way)", n)
	}
}

// A PodGroup is told after every session, as Volcano's scheduler tells it,
// why its gang is not scheduled while it is Pending or Inqueue, and that it
// is ready when its status changes past those; a made-up PodGroup is told
// nothing, having no object in the API.
func TestPodGroupEventsEverySession(t *testing.T) {
	events := record.NewFakeRecorder(10)
	c, job := startOneJob(t, Options{Recorder: events}, true)
	drain := func() (got []string) {
		for len(events.Events) > 0 {
			if e := <-events.Events; !strings.Contains(e, "FailedScheduling") {
				got = append(got, e)
			}
		}
		return got
	}
	pending := "Warning Unschedulable 1/1 tasks in gang unschedulable: pod group is not ready, 1 Pending, 1 minAvailable; Pending: 1 Unschedulable"
	c.UpdateJobStatus(job, false)
	c.UpdateJobStatus(job, false)
	if got, want := drain(), []string{pending, pending}; !reflect.DeepEqual(got, want) {
		t.Errorf("events of a Pending PodGroup over two sessions %q, want %q", got, want)
	}
	job.PodGroup.Status.Phase = v1beta1.PodGroupRunning
	c.UpdateJobStatus(job, true)
	c.UpdateJobStatus(job, false)
	if got, want := drain(), []string{"Normal Scheduled pod group is ready"}; !reflect.DeepEqual(got, want) {
		t.Errorf("events of a PodGroup turned Running %q, want %q", got, want)
	}

	c.RecordPodGroupEvent(job.PodGroup, v1.EventTypeNormal, "Unschedulable", "resource in cluster is overused: overused cpu")
	if got, want := drain(), []string{"Normal Unschedulable resource in cluster is overused: overused cpu"}; !reflect.DeepEqual(got, want) {
		t.Errorf("a plugin's event %q, want %q", got, want)
	}

	events2 := record.NewFakeRecorder(10)
	c2, synthetic := startOneJob(t, Options{Recorder: events2}, false)
	c2.UpdateJobStatus(synthetic, true)
	c2.RecordPodGroupEvent(synthetic.PodGroup, v1.EventTypeNormal, "Unschedulable", "x")
	for len(events2.Events) > 0 {
		if e := <-events2.Events; !strings.Contains(e, "FailedScheduling") {
			t.Errorf("event about a PodGroup the API does not have: %q", e)
		}
	}
}

// A bind and an eviction are told as Volcano's scheduler tells them: Normal
// Scheduled "Successfully assigned ns/pod to node" on the bound pod; on an
// evicted pod Warning Evict "Pod is evicted, because of <reason>", Ready
// False with reason Evict and the same message, and DisruptionTarget; on
// its PodGroup Normal Evict with the reason.
func TestBindAndEvictionAsVolcanoTellsThem(t *testing.T) {
	events := record.NewFakeRecorder(10)
	c, job := startOneJob(t, Options{Recorder: events, Binder: &failingBinder{}}, true)
	var task *api.TaskInfo
	for _, tk := range job.Tasks {
		task = tk
	}
	if err := c.Bind(task, "n1"); err != nil {
		t.Fatal(err)
	}
	c.Flush()
	if got, want := <-events.Events, "Normal Scheduled Successfully assigned ns/p to n1"; got != want {
		t.Errorf("event of a bind %q, want %q", got, want)
	}

	running := task.Clone()
	running.Status, running.NodeName = api.Running, "n1"
	if err := c.Evict(running, "preempt"); err != nil {
		t.Fatal(err)
	}
	c.Flush()
	var got []string
	for len(events.Events) > 0 {
		got = append(got, <-events.Events)
	}
	if want := []string{"Warning Evict Pod is evicted, because of preempt", "Normal Evict preempt"}; !reflect.DeepEqual(got, want) {
		t.Errorf("events of an eviction %q, want %q", got, want)
	}

	pod := testPod("victim", DefaultSchedulerName, "n1", "1")
	client := k8sfake.NewSimpleClientset(pod)
	var marked *v1.Pod
	client.PrependReactor("update", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		marked = a.(k8stesting.UpdateAction).GetObject().(*v1.Pod)
		return false, nil, nil
	})
	if err := (APIEvictor{Client: client}).Evict(context.Background(), pod, "reclaim"); err != nil {
		t.Fatal(err)
	}
	conds := map[v1.PodConditionType]v1.PodCondition{}
	for _, cond := range marked.Status.Conditions {
		conds[cond.Type] = cond
	}
	if r := conds[v1.PodReady]; r.Status != v1.ConditionFalse || r.Reason != "Evict" || r.Message != "Pod is evicted, because of reclaim" {
		t.Errorf("Ready condition %+v, want False, Evict, %q", r, "Pod is evicted, because of reclaim")
	}
	if d := conds[v1.DisruptionTarget]; d.Status != v1.ConditionTrue || d.Reason != v1.PodReasonPreemptionByScheduler || d.Message != "volcano: preempting to accommodate a higher priority pod" {
		t.Errorf("DisruptionTarget condition %+v, want Volcano's", d)
	}
}

// A plugin's bind annotations are on the cache's pod at once and are
// written on the API's pod before the Binding is created.
func TestBindWritesAnnotationsFirst(t *testing.T) {
	client := k8sfake.NewSimpleClientset(testNode("n1", "4"), testPod("p", DefaultSchedulerName, "", "1"))
	c := startCache(t, Options{Client: client, Binder: APIBinder{Client: client}}, nil)
	task := onlyTask(t, c)
	index := "1"
	task.SetBindAnnotations(map[string]*string{"volcano.sh/gpu-index": &index})
	client.ClearActions()
	if err := c.Bind(task, "n1"); err != nil {
		t.Fatal(err)
	}
	if got := c.Snapshot().Nodes["n1"].Tasks[task.UID].Pod.Annotations["volcano.sh/gpu-index"]; got != "1" {
		t.Errorf("the cache's pod has gpu-index %q right after Bind, want 1", got)
	}
	c.Flush()
	var verbs []string
	for _, a := range client.Actions() {
		if a.GetResource().Resource == "pods" && (a.GetVerb() == "patch" || a.GetSubresource() == "binding") {
			verbs = append(verbs, a.GetVerb()+" "+a.GetSubresource())
		}
	}
	if strings.Join(verbs, ", ") != "patch , create binding" {
		t.Errorf("API calls %q, want the patch before the binding", verbs)
	}
	pod, err := client.CoreV1().Pods(task.Namespace).Get(context.Background(), task.Name, metav1.GetOptions{})
	if err != nil || pod.Annotations["volcano.sh/gpu-index"] != "1" {
		t.Errorf("API pod annotations %v (%v), want gpu-index 1", pod.Annotations, err)
	}
}
