package benchmarks

import (
	"bytes"
	"testing"

	"github.com/caldera-scheduler/caldera/hostplugins"
	"github.com/caldera-scheduler/caldera/hostplugins/networktopologyaware"
	"github.com/caldera-scheduler/caldera/scheduler"
	"github.com/caldera-scheduler/caldera/scheduler/actions"
	"github.com/caldera-scheduler/caldera/scheduler/conf"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// BenchmarkSession runs one whole session (open, enqueue, allocate,
// backfill, close) with Volcano's default configuration and the native
// plugins, and reports pods bound per second.
func BenchmarkSession(b *testing.B) {
	for _, w := range []Workload{
		{Nodes: 500, Gangs: 100, GangSize: 10},
		{Nodes: 5000, Gangs: 100, GangSize: 10},
		{Nodes: 1000, Gangs: 100, GangSize: 10},
		{Nodes: 1000, Gangs: 200, GangSize: 10},
		{Nodes: 1000, Gangs: 1000, GangSize: 10},
		{Nodes: 5000, Gangs: 200, GangSize: 10},
		{Nodes: 5000, Gangs: 1000, GangSize: 10},
	} {
		b.Run(w.Name(), func(b *testing.B) {
			benchSession(b, w)
		})
	}
}

// BenchmarkSessionScale runs the same session as BenchmarkSession on
// clusters ten times apart, with twice as many pods as nodes, so that the
// cost's growth with the cluster is measured in one run. Large: one
// session at 50,000 nodes takes seconds; run it alone with -benchtime 1x.
func BenchmarkSessionScale(b *testing.B) {
	for _, w := range []Workload{
		{Nodes: 5000, Gangs: 1000, GangSize: 10},
		{Nodes: 20000, Gangs: 4000, GangSize: 10},
		{Nodes: 50000, Gangs: 10000, GangSize: 10},
	} {
		b.Run(w.Name(), func(b *testing.B) {
			benchSession(b, w)
		})
	}
}

// BenchmarkSessionPodRules runs the same session on one workload without
// and with pod rules (a fifth of the gangs with hostname anti-affinity, a
// fifth with zone spread), so that benchstat compares them in one run.
func BenchmarkSessionPodRules(b *testing.B) {
	for _, rules := range []bool{false, true} {
		w := Workload{Nodes: 5000, Gangs: 1000, GangSize: 10, PodRules: rules}
		b.Run(w.Name(), func(b *testing.B) {
			benchSession(b, w)
		})
	}
}

// BenchmarkSessionClaims runs the default session on one workload without
// and with claims (every tenth gang's pods each with a WaitForFirstConsumer
// claim matched to a node's local volume, another tenth's each with a
// one-GPU ResourceClaim from the nodes' ResourceSlices), so that benchstat
// compares them in one run.
func BenchmarkSessionClaims(b *testing.B) {
	for _, claims := range []bool{false, true} {
		w := Workload{Nodes: 1000, Gangs: 200, GangSize: 10, Volumes: claims, Devices: claims}
		b.Run(w.Name(), func(b *testing.B) {
			benchSession(b, w)
		})
	}
}

// BenchmarkSessionTopology runs the default session with the
// network-topology-aware plugin on the plain workload and on the same one
// under a three-tier HyperNode tree with every gang in hard mode up to
// tier 2, so that benchstat compares them in one run; the plain workload
// without the plugin is the baseline.
func BenchmarkSessionTopology(b *testing.B) {
	for _, tc := range []struct {
		name   string
		plugin bool
		w      Workload
	}{
		{"default", false, Workload{Nodes: 5000, Gangs: 1000, GangSize: 10}},
		{"with-plugin", true, Workload{Nodes: 5000, Gangs: 1000, GangSize: 10}},
		{"with-plugin", true, Workload{Nodes: 5000, Gangs: 1000, GangSize: 10, Topology: true}},
	} {
		b.Run(tc.name+"/"+tc.w.Name(), func(b *testing.B) {
			plugins, acts := hostplugins.Registry(), actions.Registry()
			yaml := conf.DefaultYAML()
			if tc.plugin {
				// The default's last line is its last tier's last plugin.
				yaml = append(bytes.TrimRight(yaml, "\n"), "\n  - name: "+networktopologyaware.Name+"\n"...)
			}
			cfg, err := conf.Parse(yaml, "benchmark", framework.Validator{Plugins: plugins, Actions: acts})
			if err != nil {
				b.Fatal(err)
			}
			runSessions(b, tc.w, plugins, acts, cfg, nil)
		})
	}
}

func benchSession(b *testing.B, w Workload) {
	plugins, acts := hostplugins.Registry(), actions.Registry()
	cfg, err := conf.Default(framework.Validator{Plugins: plugins, Actions: acts})
	if err != nil {
		b.Fatal(err)
	}
	runSessions(b, w, plugins, acts, cfg, nil)
}

// runSessions times b.N whole sessions on the workload and reports pods
// bound per second; a session that leaves a pod unbound fails the
// benchmark.
func runSessions(b *testing.B, w Workload, plugins framework.Registry, acts framework.ActionRegistry, cfg *conf.Config, warmed func()) {
	c := &snapshotCache{base: w.Cluster()}
	s := scheduler.New(c, plugins, acts, cfg)
	// One session before the clock starts: the timed ones are a running
	// scheduler's, whose Wasm modules have instances that hold the last
	// view (docs/performance.md gives the first session's cost apart).
	if err := s.RunOnce(); err != nil {
		b.Fatal(err)
	}
	if warmed != nil {
		warmed()
	}
	c.binds.Store(0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if w.Churn {
			b.StopTimer()
			w.churn(c.base, i+1)
			b.StartTimer()
		}
		if err := s.RunOnce(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	pods := float64(w.Gangs * w.GangSize)
	if got := c.binds.Load(); got != int64(pods)*int64(b.N) {
		b.Fatalf("bound %d pods over %d sessions, want %d each", got, b.N, int(pods))
	}
	b.ReportMetric(pods*float64(b.N)/b.Elapsed().Seconds(), "pods/s")
}

// TestSessionBindsEveryPod guards the benchmark's premise in the ordinary
// test run: on a small workload one default session binds every pod.
func TestSessionBindsEveryPod(t *testing.T) {
	plugins, acts := hostplugins.Registry(), actions.Registry()
	cfg, err := conf.Default(framework.Validator{Plugins: plugins, Actions: acts})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []Workload{{Nodes: 20, Gangs: 10, GangSize: 10}, {Nodes: 20, Gangs: 10, GangSize: 10, PodRules: true},
		{Nodes: 20, Gangs: 10, GangSize: 10, Volumes: true, Devices: true}} {
		c := &snapshotCache{base: w.Cluster()}
		if err := scheduler.New(c, plugins, acts, cfg).RunOnce(); err != nil {
			t.Fatal(err)
		}
		if got := c.binds.Load(); got != 100 {
			t.Fatalf("%s: bound %d of 100 pods in one session", w.Name(), got)
		}
	}
}
