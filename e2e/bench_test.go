package e2e

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
	"volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/caldera-scheduler/caldera/e2e/harness"
)

// The workload of BenchmarkThroughput.
const (
	benchPods = 10_000
	gangSize  = 10
	// benchQPS and benchCreators are the benchmark's own client: its rate
	// limiter never holds a create back, so the creation rate reported beside
	// pods/s is what the API server accepted.
	benchQPS      = 5000
	benchCreators = 32
	// schedulerQPS is both schedulers' client limit (QPS and burst):
	// Volcano's default, which Caldera keeps.
	schedulerQPS = 2000
	// bindTimeout bounds one case's wait for its last bind: vc-scheduler
	// takes about ten minutes over the plain pods.
	bindTimeout = 25 * time.Minute
)

// benchNode fits 32 of the benchmark's pods; 1,000 nodes hold 32,000.
var benchNode = harness.NodeSpec{CPU: "32", Memory: "256Gi", Pods: 110}

// throughputCase is one sub-benchmark of BenchmarkThroughput.
type throughputCase struct {
	scheduler string // "caldera", "vc-scheduler" or "kube-scheduler"
	nodes     int
	gangs     bool // gangs of gangSize pods; otherwise plain pods
}

func (c throughputCase) name() string {
	workload := "plain"
	if c.gangs {
		workload = "gangs"
	}
	return fmt.Sprintf("%s/nodes=%d/%s", c.scheduler, c.nodes, workload)
}

// BenchmarkThroughput measures scheduling throughput on the real control
// plane: pods per second from the first pod created to the last pod bound,
// for 10,000 plain pods and for 1,000 gangs of 10 (PodGroups of minMember
// 10, created before their pods), on 1,000 and 5,000 kwok nodes; and the
// plain workload under kube-scheduler, built from the same Kubernetes
// release as the apiserver, in the same run. Each case has fresh nodes and
// a fresh scheduler process; the pods are created while the scheduler runs,
// by 32 parallel creators. Beside pods/s it reports the creation rate, the
// scheduler's peak RSS and the CPU time each process spent in the measured
// window. Run it with `make bench-e2e` (docs/performance.md has results).
func BenchmarkThroughput(b *testing.B) {
	var cases []throughputCase
	for _, nodes := range []int{1000, 5000} {
		// The other schedulers between Caldera's two cases, so that no
		// scheduler always meets the fuller etcd.
		cases = append(cases,
			throughputCase{"caldera", nodes, false},
			throughputCase{"kube-scheduler", nodes, false},
			throughputCase{"vc-scheduler", nodes, false},
			throughputCase{"caldera", nodes, true},
			throughputCase{"vc-scheduler", nodes, true})
	}
	for _, c := range cases {
		b.Run(c.name(), func(b *testing.B) { benchThroughput(b, c) })
	}
}

// benchScheduler is the running scheduler of one case.
type benchScheduler interface {
	Pid() int
	Stop() error
}

func benchThroughput(b *testing.B, c throughputCase) {
	if b.N != 1 {
		b.Fatalf("one run per case: use -benchtime 1x (b.N is %d)", b.N)
	}
	b.StopTimer()
	b.ResetTimer()
	tc := harness.NewTest(b)
	tc.Kube = benchClient(b, tc.Cluster())
	tc.CreateNodes(c.nodes, benchNode)
	schedulerName := harness.SchedulerName
	if c.scheduler == "kube-scheduler" {
		schedulerName = "default-scheduler"
	}
	pods := benchPodSet(tc.Namespace, schedulerName, c.gangs)
	if c.gangs {
		err := harness.Parallel(benchPods/gangSize, benchCreators, func(i int) error {
			pg := &v1beta1.PodGroup{
				ObjectMeta: metav1.ObjectMeta{Name: gangName(i), Namespace: tc.Namespace},
				Spec:       v1beta1.PodGroupSpec{MinMember: gangSize, Queue: "default"},
			}
			_, err := tc.Volcano.SchedulingV1beta1().PodGroups(tc.Namespace).Create(tc.Ctx, pg, metav1.CreateOptions{})
			return err
		})
		if err != nil {
			b.Fatalf("creating PodGroups: %v", err)
		}
	}

	var pgWrites *podGroupWrites
	if c.gangs {
		pgWrites = watchPodGroupWrites(b, tc)
	}
	var sched benchScheduler
	var caldera *harness.Scheduler
	// metricsURL and sessions: where the scheduler serves /metrics and the
	// histogram of its sessions' latency (kube-scheduler has no sessions).
	var metricsURL, sessions string
	switch c.scheduler {
	case "caldera":
		caldera = tc.StartScheduler(
			"--kubeconfig="+tc.Cluster().AdminKubeconfig,
			fmt.Sprintf("--kube-api-qps=%d", schedulerQPS),
			fmt.Sprintf("--kube-api-burst=%d", schedulerQPS))
		sched = caldera
		metricsURL, sessions = caldera.MetricsURL, "caldera_e2e_scheduling_latency_milliseconds"
	case "vc-scheduler":
		// Volcano's default configuration, which is also caldera's
		// embedded default; verbosity 2, as caldera's default logs no line
		// per pod (Volcano's chart asks for 3, which does).
		vc := tc.StartVcScheduler(testdataPath(b, "allocate.yaml"),
			fmt.Sprintf("--kube-api-qps=%d", schedulerQPS),
			fmt.Sprintf("--kube-api-burst=%d", schedulerQPS),
			"-v=2")
		vc.WaitFirstSession(b, 2*time.Minute)
		sched = vc
		metricsURL, sessions = vc.MetricsURL, "volcano_e2e_scheduling_latency_milliseconds"
		if !c.gangs {
			// vc-scheduler schedules no pod without a PodGroup: in a
			// Volcano installation the controller manager gives each
			// plain pod one, and so it does here, its CPU time counted
			// under "other". It gets the schedulers' client limit, so that
			// its own (50 QPS by default) is not what the case measures.
			tc.StartVolcanoControllers("-v=2",
				fmt.Sprintf("--kube-api-qps=%d", schedulerQPS),
				fmt.Sprintf("--kube-api-burst=%d", schedulerQPS))
		}
	default:
		sched = tc.StartKubeScheduler(schedulerQPS, schedulerQPS)
	}
	binds := watchBinds(b, tc, len(pods))
	metricsBefore := schedulerMetrics(b, metricsURL)
	before := readUsages(b, tc, sched.Pid())

	var created atomic.Int64
	createTimes := make([]time.Time, len(pods))
	stopProgress := reportProgress(c.name(), &created, binds)
	b.StartTimer()
	start := time.Now()
	err := harness.Parallel(len(pods), benchCreators, func(i int) error {
		_, err := tc.Kube.CoreV1().Pods(tc.Namespace).Create(tc.Ctx, pods[i], metav1.CreateOptions{})
		createTimes[i] = time.Now()
		created.Add(1)
		return err
	})
	createdAt := time.Now()
	if err != nil {
		stopProgress()
		b.Fatalf("creating pods: %v", err)
	}
	lastBind, ok := binds.wait(bindTimeout)
	b.StopTimer()
	stopProgress()
	if !ok {
		b.Fatalf("%d of %d pods bound after %s", binds.bound.Load(), len(pods), bindTimeout)
	}
	after := readUsages(b, tc, sched.Pid())
	metricsAfter := schedulerMetrics(b, metricsURL)
	if err := sched.Stop(); err != nil {
		b.Errorf("stopping the scheduler: %v", err)
	}

	window := lastBind.Sub(start)
	n := float64(len(pods))
	b.ReportMetric(n/window.Seconds(), "pods/s")
	b.ReportMetric(n/createdAt.Sub(start).Seconds(), "created-pods/s")
	b.ReportMetric(lastBind.Sub(createdAt).Seconds(), "s-after-last-create")
	b.ReportMetric(float64(after.scheduler.PeakRSS)/(1<<20), "sched-peak-MiB")
	cpu := after.minus(before)
	b.ReportMetric(cpu.scheduler.Seconds(), "sched-cpu-s")
	b.ReportMetric(cpu.apiserver.Seconds(), "apiserver-cpu-s")
	b.ReportMetric(cpu.etcd.Seconds(), "etcd-cpu-s")
	b.ReportMetric(cpu.kwok.Seconds(), "kwok-cpu-s")
	b.ReportMetric(cpu.bench.Seconds(), "bench-cpu-s")
	b.ReportMetric(cpu.other.Seconds(), "other-cpu-s")
	if sessions != "" {
		// Sessions that ended in the window, whole: one that began before the
		// first create counts, one still running at the last bind does not.
		b.ReportMetric(metricsAfter[sessions+"_count"]-metricsBefore[sessions+"_count"], "sessions")
		b.ReportMetric((metricsAfter[sessions+"_sum"]-metricsBefore[sessions+"_sum"])/1e3, "session-s")
	}
	if caldera != nil {
		b.Logf("Caldera: %s", calderaTimes(metricsBefore, metricsAfter))
	}
	b.Logf("creates per second: %v", perSecond(start, createTimes))
	b.Logf("binds per second:   %v", perSecond(start, binds.times))
	if pgWrites != nil {
		b.Logf("PodGroup writes: %s", pgWrites.summary(start))
	}
	b.Logf("%d pods bound in %.1fs (created in %.1fs); CPU s: scheduler %.1f, apiserver %.1f, etcd %.1f, kwok %.1f, benchmark %.1f, other %.1f of %.0f available; scheduler peak RSS %d MiB",
		len(pods), window.Seconds(), createdAt.Sub(start).Seconds(),
		cpu.scheduler.Seconds(), cpu.apiserver.Seconds(), cpu.etcd.Seconds(), cpu.kwok.Seconds(), cpu.bench.Seconds(), cpu.other.Seconds(),
		float64(runtime.NumCPU())*window.Seconds(), after.scheduler.PeakRSS>>20)
}

// benchClient is an admin client for the benchmark's own calls: protobuf,
// as kube-scheduler and kwok use, and limits well above what the
// apiserver can serve on this machine.
func benchClient(b *testing.B, c *harness.Cluster) kubernetes.Interface {
	cfg := rest.CopyConfig(c.REST)
	cfg.QPS, cfg.Burst = benchQPS, benchQPS
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	cfg.UserAgent = "caldera-e2e-bench"
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	return client
}

func gangName(i int) string { return fmt.Sprintf("gang-%d", i) }

// benchPodSet is the case's pods, 1 cpu and 1Gi each, in creation order;
// a gang's pods are created one after the other.
func benchPodSet(namespace, schedulerName string, gangs bool) []*v1.Pod {
	requests := v1.ResourceList{v1.ResourceCPU: resource.MustParse("1"), v1.ResourceMemory: resource.MustParse("1Gi")}
	pods := make([]*v1.Pod, benchPods)
	for i := range pods {
		pod := &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p-%d", i), Namespace: namespace},
			Spec: v1.PodSpec{
				SchedulerName: schedulerName,
				Containers:    []v1.Container{{Name: "main", Image: "pause", Resources: v1.ResourceRequirements{Requests: requests}}},
			},
		}
		if gangs {
			pod.Annotations = map[string]string{v1beta1.KubeGroupNameAnnotationKey: gangName(i / gangSize)}
		}
		pods[i] = pod
	}
	return pods
}

// bindWatch follows the namespace's pods through a watch and notes when
// each is first seen with a node.
type bindWatch struct {
	bound atomic.Int64
	done  chan struct{}
	// times holds when each bind was first seen, in order; it belongs to
	// the watching goroutine until done is closed.
	times []time.Time
}

// retryWatch watches from resourceVersion on until the benchmark ends; the
// RetryWatcher resumes the watch if the apiserver closes it.
func retryWatch(b *testing.B, resourceVersion string, watchFunc cache.WatchFuncWithContext) <-chan watch.Event {
	ctx, cancel := context.WithCancel(context.Background())
	rw, err := watchtools.NewRetryWatcherWithContext(ctx, resourceVersion, &cache.ListWatch{WatchFuncWithContext: watchFunc})
	if err != nil {
		cancel()
		b.Fatal(err)
	}
	b.Cleanup(func() { cancel(); rw.Stop() })
	return rw.ResultChan()
}

// watchBinds starts watching before any pod exists, so that no bind is
// missed.
func watchBinds(b *testing.B, tc *harness.Test, want int) *bindWatch {
	pods := tc.Kube.CoreV1().Pods(tc.Namespace)
	list, err := pods.List(tc.Ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		b.Fatal(err)
	}
	events := retryWatch(b, list.ResourceVersion, func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
		return pods.Watch(ctx, opts)
	})
	w := &bindWatch{done: make(chan struct{}), times: make([]time.Time, 0, want)}
	go func() {
		seen := make(map[string]bool, want)
		for ev := range events {
			if ev.Type != watch.Added && ev.Type != watch.Modified {
				continue
			}
			pod, ok := ev.Object.(*v1.Pod)
			if !ok || pod.Spec.NodeName == "" || seen[pod.Name] {
				continue
			}
			seen[pod.Name] = true
			w.times = append(w.times, time.Now())
			if w.bound.Add(1) == int64(want) {
				close(w.done)
				return
			}
		}
	}()
	return w
}

// podGroupWrites records when the namespace's PodGroups change: in the
// gang cases, the scheduler's status writes.
type podGroupWrites struct {
	mu    sync.Mutex
	times []time.Time
}

func watchPodGroupWrites(b *testing.B, tc *harness.Test) *podGroupWrites {
	pgs := tc.Volcano.SchedulingV1beta1().PodGroups(tc.Namespace)
	list, err := pgs.List(tc.Ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		b.Fatal(err)
	}
	events := retryWatch(b, list.ResourceVersion, func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
		return pgs.Watch(ctx, opts)
	})
	w := &podGroupWrites{}
	go func() {
		for ev := range events {
			if ev.Type == watch.Modified {
				w.mu.Lock()
				w.times = append(w.times, time.Now())
				w.mu.Unlock()
			}
		}
	}()
	return w
}

// summary says how many writes came before start, and how many in each
// second from start on.
func (w *podGroupWrites) summary(start time.Time) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	before := 0
	for _, t := range w.times {
		if t.Before(start) {
			before++
		}
	}
	return fmt.Sprintf("%d before the first pod, then per second %v", before, perSecond(start, w.times[before:]))
}

// wait returns when the last pod was seen bound, or false after timeout.
func (w *bindWatch) wait(timeout time.Duration) (time.Time, bool) {
	select {
	case <-w.done:
		return w.times[len(w.times)-1], true
	case <-time.After(timeout):
		return time.Time{}, false
	}
}

// perSecond counts the times in each second from start on.
func perSecond(start time.Time, times []time.Time) []int {
	var out []int
	for _, t := range times {
		i := max(0, int(t.Sub(start)/time.Second))
		for len(out) <= i {
			out = append(out, 0)
		}
		out[i]++
	}
	return out
}

// reportProgress prints the counts every 10 s on stderr until stopped, so
// that a slow case shows where it is.
func reportProgress(name string, created *atomic.Int64, binds *bindWatch) (stop func()) {
	done := make(chan struct{})
	start := time.Now()
	go func() {
		tick := time.NewTicker(10 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				fmt.Fprintf(os.Stderr, "%s: %3.0fs: %d created, %d bound\n",
					name, time.Since(start).Seconds(), created.Load(), binds.bound.Load())
			}
		}
	}()
	return func() { close(done) }
}

// usages is the CPU time and memory of the processes a case involves, and
// the busy time of the whole machine.
type usages struct {
	scheduler, apiserver, etcd, kwok, bench harness.Usage
	machine                                 time.Duration
}

func readUsages(b *testing.B, tc *harness.Test, scheduler int) usages {
	etcd, apiserver, kwok := tc.Cluster().Pids()
	var u usages
	for _, p := range []struct {
		pid int
		to  *harness.Usage
	}{{scheduler, &u.scheduler}, {apiserver, &u.apiserver}, {etcd, &u.etcd}, {kwok, &u.kwok}, {os.Getpid(), &u.bench}} {
		var err error
		if *p.to, err = harness.ReadUsage(p.pid); err != nil {
			b.Fatal(err)
		}
	}
	var err error
	if u.machine, err = harness.ReadMachineCPU(); err != nil {
		b.Fatal(err)
	}
	return u
}

// cpuTimes is the CPU time each process spent between two readings, and
// what everything else on the machine spent (another build, say).
type cpuTimes struct{ scheduler, apiserver, etcd, kwok, bench, other time.Duration }

func (u usages) minus(earlier usages) cpuTimes {
	c := cpuTimes{
		scheduler: u.scheduler.CPU - earlier.scheduler.CPU,
		apiserver: u.apiserver.CPU - earlier.apiserver.CPU,
		etcd:      u.etcd.CPU - earlier.etcd.CPU,
		kwok:      u.kwok.CPU - earlier.kwok.CPU,
		bench:     u.bench.CPU - earlier.bench.CPU,
	}
	c.other = u.machine - earlier.machine - c.scheduler - c.apiserver - c.etcd - c.kwok - c.bench
	return c
}

// schedulerMetrics reads a scheduler's /metrics (Caldera's or
// vc-scheduler's, under base) into a map from series (name and labels, as
// printed) to value; nil for kube-scheduler, whose base is "".
func schedulerMetrics(b *testing.B, base string) map[string]float64 {
	if base == "" {
		return nil
	}
	m, err := harness.ReadMetrics(base+"/metrics", 2*time.Minute)
	if err != nil {
		b.Fatalf("reading %s/metrics: %v", base, err)
	}
	return m
}

// calderaTimes is where Caldera's sessions spent their time between two
// readings of its metrics, in seconds: whole sessions and each action.
func calderaTimes(before, after map[string]float64) string {
	delta := func(series string) float64 { return after[series] - before[series] }
	out := fmt.Sprintf("%.0f sessions, %.2fs in sessions",
		delta("caldera_e2e_scheduling_latency_milliseconds_count"),
		delta("caldera_e2e_scheduling_latency_milliseconds_sum")/1e3)
	for _, action := range []string{"enqueue", "allocate", "backfill"} {
		out += fmt.Sprintf(", %s %.2fs", action,
			delta(`caldera_action_scheduling_latency_microseconds_sum{action="`+action+`"}`)/1e6)
	}
	var open, closing float64
	for series := range after {
		if !strings.HasPrefix(series, "caldera_plugin_scheduling_latency_microseconds_sum{") {
			continue
		}
		if strings.Contains(series, `"OnSessionOpen"`) {
			open += delta(series) / 1e6
		} else {
			closing += delta(series) / 1e6
		}
	}
	out += fmt.Sprintf(", plugins opening %.2fs and closing %.2fs", open, closing)
	return out + fmt.Sprintf("; %.0f times a pod was left pending",
		delta(`caldera_schedule_attempts_total{result="unschedulable"}`))
}
