package benchmarks

import (
	"fmt"
	goruntime "runtime"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/hostplugins/binpack"
	"github.com/caldera-scheduler/caldera/scheduler"
	"github.com/caldera-scheduler/caldera/scheduler/actions"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/conf"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// The HTTP extender against Wasm and native code, on one policy (binpack's
// score). Not matched by make bench's BenchmarkSession pattern: the
// extender's sessions take seconds. Run:
//
//	go test -run '^$' -bench BenchmarkExtender -benchtime 2x ./benchmarks/

// scorerConf is Volcano's default configuration with the scorer under test
// in place of nodeorder (as BenchmarkSessionBinpack has it).
const scorerConf = `actions: "enqueue, allocate, backfill"
tiers:
- plugins: [{name: priority}, {name: gang}, {name: conformance}]
- plugins:
  - {name: overcommit}
  - {name: drf}
  - {name: predicates}
  - {name: proportion}
%s`

// BenchmarkExtenderSession runs whole sessions of the session benchmark's
// workload with each implementation of binpack's score.
func BenchmarkExtenderSession(b *testing.B) {
	w := Workload{Nodes: 1000, Gangs: 200, GangSize: 10}
	for _, impl := range scorers {
		b.Run(w.Name()+"/"+impl, func(b *testing.B) {
			plugins, entry := scorer(b, impl)
			acts := actions.Registry()
			cfg, err := conf.Parse([]byte(fmt.Sprintf(scorerConf, entry)), "bench", framework.Validator{Plugins: plugins, Actions: acts})
			if err != nil {
				b.Fatal(err)
			}
			runSessionsCPU(b, w, plugins, acts, cfg)
		})
	}
}

// runSessionsCPU is runSessions that also reports the process's CPU time
// per session (cpu-s/op), the figure to compare when the machine is shared.
func runSessionsCPU(b *testing.B, w Workload, plugins framework.Registry, acts framework.ActionRegistry, cfg *conf.Config) {
	c := &snapshotCache{base: w.Cluster()}
	s := scheduler.New(c, plugins, acts, cfg)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := startCPU()
	for i := 0; i < b.N; i++ {
		if err := s.RunOnce(); err != nil {
			b.Fatal(err)
		}
	}
	cpu.report(b, time.Second, "cpu-s/op")
	b.StopTimer()
	pods := float64(w.Gangs * w.GangSize)
	if got := c.binds.Load(); got != int64(pods)*int64(b.N) {
		b.Fatalf("bound %d pods over %d sessions, want %d each", got, b.N, int(pods))
	}
	b.ReportMetric(pods*float64(b.N)/b.Elapsed().Seconds(), "pods/s")
}

// cpuClock measures the process's CPU time over a benchmark's loop.
type cpuClock struct {
	start time.Duration
	ok    bool
}

// startCPU collects garbage first, so that the setup's garbage is not
// charged to the loop.
func startCPU() cpuClock {
	goruntime.GC()
	t, ok := processCPU()
	return cpuClock{start: t, ok: ok}
}

// report adds the CPU time per operation in the given unit.
func (c cpuClock) report(b *testing.B, unit time.Duration, name string) {
	end, ok := processCPU()
	if !c.ok || !ok || b.N == 0 {
		return
	}
	b.ReportMetric(float64(end-c.start)/float64(unit)/float64(b.N), name)
}

// BenchmarkExtenderHook times single hooks in a session open on the
// workload's cluster (1,000 nodes, 2,000 pending pods):
//   - score: one task's scores on n nodes (420 is what allocate scores per
//     task at 1,000 nodes; 1 shows the fixed cost of a call);
//   - predicate: one task against every node, the extender asked once per
//     node (Volcano's predicate verb) or once in all (the batch verb);
//   - open: opening and closing a session, where the Wasm plugins and an
//     extender with onSessionOpenVerb receive the whole snapshot.
func BenchmarkExtenderHook(b *testing.B) {
	w := Workload{Nodes: 1000, Gangs: 200, GangSize: 10}
	for _, n := range []int{1, 420} {
		for _, impl := range scorers {
			b.Run(fmt.Sprintf("score/nodes=%d/%s", n, impl), func(b *testing.B) {
				benchScore(b, w, impl, n)
			})
		}
	}
	for _, p := range []struct{ name, verb string }{
		{"extender.predicate", "predicateVerb: predicate"},
		{"extender.batchPredicate", "batchPredicateVerb: batchPredicate"},
	} {
		b.Run(fmt.Sprintf("predicate/nodes=%d/%s", w.Nodes, p.name), func(b *testing.B) {
			benchPredicate(b, w, p.verb)
		})
	}
	for _, impl := range scorers {
		b.Run("open/"+w.Name()+"/"+impl, func(b *testing.B) {
			benchOpen(b, w, impl)
		})
	}
}

// openHookSession opens one session with only the plugin under test.
func openHookSession(b *testing.B, w Workload, plugins framework.Registry, entry string) *framework.Session {
	b.Helper()
	cfg, err := conf.Parse([]byte("actions: \"allocate\"\ntiers:\n- plugins:\n"+entry), "bench",
		framework.Validator{Plugins: plugins, Actions: actions.Registry()})
	if err != nil {
		b.Fatal(err)
	}
	ssn, err := framework.OpenSession(&snapshotCache{base: w.Cluster()}, plugins, cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(ssn.Close)
	return ssn
}

// pendingTasks returns k pending tasks of the session, in a stable order.
func pendingTasks(b *testing.B, ssn *framework.Session, k int) []*api.TaskInfo {
	var out []*api.TaskInfo
	for _, j := range ssn.JobList {
		for _, t := range j.TaskStatusIndex[api.Pending] {
			if len(out) == k {
				return out
			}
			out = append(out, t)
		}
	}
	if len(out) < k {
		b.Fatalf("the workload has %d pending tasks, want %d", len(out), k)
	}
	return out
}

func benchScore(b *testing.B, w Workload, impl string, n int) {
	plugins, entry := scorer(b, impl)
	ssn := openHookSession(b, w, plugins, entry)
	task := pendingTasks(b, ssn, 1)[0]
	nodes := ssn.NodeList[:n]
	scores := make([]float64, n)
	var buf framework.ScoreBuffer
	if err := ssn.ScoreNodes(task, nodes, scores, &buf); err != nil {
		b.Fatal(err)
	}
	// The premise of the comparison: every implementation scores alike.
	weights := binpack.Weights{Binpack: 1, CPU: 1, Memory: 1, Scalars: map[v1.ResourceName]int{}}
	for i, node := range nodes {
		if want := binpack.Score(task.Resreq, node.Allocatable, node.Used, &weights); scores[i] != want {
			b.Fatalf("%s scores %s %v, native binpack %v", impl, node.Name, scores[i], want)
		}
	}
	cpu := startCPU()
	for b.Loop() {
		if err := ssn.ScoreNodes(task, nodes, scores, &buf); err != nil {
			b.Fatal(err)
		}
	}
	cpu.report(b, time.Microsecond, "cpu-µs/op")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/node")
}

func benchPredicate(b *testing.B, w Workload, verb string) {
	plugins, entry := scorer(b, "extender", verb)
	ssn := openHookSession(b, w, plugins, entry)
	// Two tasks taken in turn, so that the batch verb's remembered answers
	// never serve a whole operation.
	tasks := pendingTasks(b, ssn, 2)
	i := 0
	cpu := startCPU()
	defer cpu.report(b, time.Millisecond, "cpu-ms/op")
	for b.Loop() {
		task := tasks[i%2]
		i++
		for _, node := range ssn.NodeList {
			if st := ssn.PredicateFn(task, node); !st.IsSuccess() {
				b.Fatalf("%s rejected: %v", node.Name, st)
			}
		}
	}
}

func benchOpen(b *testing.B, w Workload, impl string) {
	var verbs []string
	if impl == "extender" {
		verbs = []string{"onSessionOpenVerb: onSessionOpen", "onSessionCloseVerb: onSessionClose"}
	}
	plugins, entry := scorer(b, impl, verbs...)
	cfg, err := conf.Parse([]byte("actions: \"allocate\"\ntiers:\n- plugins:\n"+entry), "bench",
		framework.Validator{Plugins: plugins, Actions: actions.Registry()})
	if err != nil {
		b.Fatal(err)
	}
	cache := &snapshotCache{base: w.Cluster()}
	cpu := startCPU()
	defer cpu.report(b, time.Millisecond, "cpu-ms/op")
	for b.Loop() {
		ssn, err := framework.OpenSession(cache, plugins, cfg)
		if err != nil {
			b.Fatal(err)
		}
		ssn.Close()
	}
}
