package benchmarks

import (
	"context"
	"fmt"
	"os"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/caldera-scheduler/caldera/hostplugins"
	"github.com/caldera-scheduler/caldera/runtime"
	"github.com/caldera-scheduler/caldera/scheduler"
	"github.com/caldera-scheduler/caldera/scheduler/actions"
	"github.com/caldera-scheduler/caldera/scheduler/conf"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// binpackConf is Volcano's default configuration with binpack in place of
// nodeorder, so that the one scoring plugin is the one under comparison.
const binpackConf = `actions: "enqueue, allocate, backfill"
tiers:
- plugins: [{name: priority}, {name: gang}, {name: conformance}]
- plugins: [{name: overcommit}, {name: drf}, {name: predicates}, {name: proportion}, {name: %s}]
`

// BenchmarkSessionBinpack runs the session benchmark's workload with the
// native binpack plugin and with its Wasm ports (make plugins builds them),
// sandbox limits on (1 s call deadline, 64 MiB memory).
func BenchmarkSessionBinpack(b *testing.B) {
	for _, w := range []Workload{
		{Nodes: 1000, Gangs: 200, GangSize: 10},
		// BenchmarkSessionClaims' workload: the host runs the volume and
		// device checks for the predicates port (ABI 1.10).
		{Nodes: 1000, Gangs: 200, GangSize: 10, Volumes: true, Devices: true},
		{Nodes: 5000, Gangs: 1000, GangSize: 10},
	} {
		for _, impl := range []string{"binpack", "binpack.tinygo", "binpack.go"} {
			b.Run(w.Name()+"/"+impl, func(b *testing.B) {
				benchBinpack(b, w, impl)
			})
		}
	}
}

func benchBinpack(b *testing.B, w Workload, impl string) {
	plugins, acts := hostplugins.Registry(), actions.Registry()
	if impl != "binpack" {
		path := "../build/plugins/" + impl + ".wasm"
		if _, err := os.Stat(path); err != nil {
			b.Skipf("%s is not built (make plugins)", path)
		}
		limits := runtime.DefaultLimits()
		limits.CallTimeout = time.Minute // measured separately: see docs/performance.md
		p, err := runtime.Load(context.Background(), path, runtime.Options{Name: impl, Limits: limits})
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close(context.Background())
		plugins[impl] = runtime.Factory(impl, p, runtime.Policy{})
	}
	cfg, err := conf.Parse([]byte(fmt.Sprintf(binpackConf, impl)), "bench", framework.Validator{Plugins: plugins, Actions: acts})
	if err != nil {
		b.Fatal(err)
	}
	runSessions(b, w, plugins, acts, cfg, nil)
}

// allPorts is Volcano's default configuration with every plugin replaced by
// its Wasm port when `make plugins` has built it (build is "tinygo", "go"
// or "rust", with ",no-deadline" for modules loaded without a call
// deadline, whose loop checks stay); native plugins stay where
// no port is built. The modules are loaded with ctx: wazero reads
// compile-time options, such as function listeners, from it; they are
// closed when the test ends.
func allPorts(b testing.TB, ctx context.Context, build string) (framework.Registry, framework.ActionRegistry, *conf.Config, []string) {
	plugins, acts, cfg, ported, closeAll := loadPorts(b, ctx, build)
	b.Cleanup(closeAll)
	return plugins, acts, cfg, ported
}

// loadPorts is allPorts with the modules' closing left to the caller.
func loadPorts(b testing.TB, ctx context.Context, build string) (framework.Registry, framework.ActionRegistry, *conf.Config, []string, func()) {
	plugins, acts := hostplugins.Registry(), actions.Registry()
	limits := runtime.DefaultLimits()
	if trimmed, ok := strings.CutSuffix(build, ",no-deadline"); ok {
		build, limits.CallTimeout = trimmed, 0
	}
	names := []string{"priority", "gang", "conformance", "overcommit", "drf", "predicates", "proportion", "nodeorder"}
	entry := map[string]string{}
	var ported []string
	var loaded []*runtime.Plugin
	closeAll := func() {
		for _, p := range loaded {
			_ = p.Close(context.Background())
		}
	}
	for _, n := range names {
		entry[n] = n
		impl := n + "." + build
		path := "../build/plugins/" + impl + ".wasm"
		if _, err := os.Stat(path); err != nil {
			continue
		}
		p, err := runtime.Load(ctx, path, runtime.Options{Name: impl, Limits: limits})
		if err != nil {
			closeAll()
			b.Fatal(err)
		}
		loaded = append(loaded, p)
		plugins[impl] = runtime.Factory(impl, p, runtime.Policy{})
		entry[n] = impl
		ported = append(ported, n)
	}
	text := fmt.Sprintf(`actions: "enqueue, allocate, backfill"
tiers:
- plugins: [{name: %s}, {name: %s}, {name: %s}]
- plugins: [{name: %s}, {name: %s}, {name: %s}, {name: %s}, {name: %s}]
`, entry["priority"], entry["gang"], entry["conformance"], entry["overcommit"], entry["drf"], entry["predicates"], entry["proportion"], entry["nodeorder"])
	cfg, err := conf.Parse([]byte(text), "bench", framework.Validator{Plugins: plugins, Actions: acts})
	if err != nil {
		closeAll()
		b.Fatal(err)
	}
	return plugins, acts, cfg, ported, closeAll
}

// BenchmarkFirstSessionPorts times a scheduler's first session with the
// ports (each module instantiated and sent the whole view) against a
// native one: every iteration loads the modules afresh, untimed (wazero
// compiles them), and times one session of a new scheduler.
func BenchmarkFirstSessionPorts(b *testing.B) {
	w := Workload{Nodes: 5000, Gangs: 1000, GangSize: 10}
	for _, build := range []string{"native", "tinygo", "go", "rust"} {
		b.Run(w.Name()+"/"+build, func(b *testing.B) {
			pods := int64(w.Gangs * w.GangSize)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				plugins, acts := hostplugins.Registry(), actions.Registry()
				cfg, err := conf.Default(framework.Validator{Plugins: plugins, Actions: acts})
				closeAll := func() {}
				if build != "native" {
					var ported []string
					plugins, acts, cfg, ported, closeAll = loadPorts(b, context.Background(), build)
					if len(ported) == 0 {
						b.Skip("no ports built (make plugins)")
					}
				}
				if err != nil {
					b.Fatal(err)
				}
				c := &snapshotCache{base: w.Cluster()}
				s := scheduler.New(c, plugins, acts, cfg)
				goruntime.GC()
				b.StartTimer()
				if err := s.RunOnce(); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				closeAll()
				if got := c.binds.Load(); got != pods {
					b.Fatalf("bound %d pods, want %d", got, pods)
				}
			}
			b.ReportMetric(float64(pods)*float64(b.N)/b.Elapsed().Seconds(), "pods/s")
		})
	}
}

// BenchmarkSessionPorts runs the session benchmark with Volcano's default
// plugins as Wasm ports (sandbox limits on: 1 s deadline, 64 MiB), against
// the native plugins. Sessions run back to back on the same cluster, so
// from the second on each module gets a view delta.
func BenchmarkSessionPorts(b *testing.B) {
	for _, w := range []Workload{
		{Nodes: 1000, Gangs: 200, GangSize: 10},
		// BenchmarkSessionClaims' workload: the host runs the volume and
		// device checks for the predicates port (ABI 1.10).
		{Nodes: 1000, Gangs: 200, GangSize: 10, Volumes: true, Devices: true},
		{Nodes: 5000, Gangs: 1000, GangSize: 10},
		// A tenth of the nodes and pods new before every session: the
		// modules receive that tenth of the view.
		{Nodes: 5000, Gangs: 1000, GangSize: 10, Churn: true},
		// The worst case for node-local scores: no session promises them.
		{Nodes: 5000, Gangs: 1000, GangSize: 10, SoftTaints: true},
		// Inter-pod anti-affinity and zone spread: no node-local verdict,
		// score or by-shape pre-predicate in any session.
		{Nodes: 5000, Gangs: 1000, GangSize: 10, PodRules: true},
	} {
		for _, build := range []string{"native", "tinygo", "go", "rust", "tinygo,no-deadline", "go,no-deadline", "rust,no-deadline"} {
			b.Run(w.Name()+"/"+build, func(b *testing.B) {
				if build == "native" {
					benchSession(b, w)
					return
				}
				plugins, acts, cfg, ported := allPorts(b, context.Background(), build)
				if len(ported) == 0 {
					b.Skip("no ports built (make plugins)")
				}
				b.Logf("ported: %v", ported)
				// Printed, not logged: a benchmark's log keeps ten lines.
				before := GatherCalls()
				runSessions(b, w, plugins, acts, cfg, func() {
					fmt.Printf("%s, first session (whole view):\n%s", b.Name(), CallTimes(before, 1))
					before = GatherCalls()
				})
				fmt.Printf("%s (%d sessions):\n%s", b.Name(), b.N, CallTimes(before, b.N))
			})
		}
	}
}
