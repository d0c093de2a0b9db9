package reload

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	goruntime "runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	wasmruntime "github.com/caldera-scheduler/caldera/runtime"
	"github.com/caldera-scheduler/caldera/runtime/reload/reloadtest"
	"github.com/caldera-scheduler/caldera/scheduler"
	"github.com/caldera-scheduler/caldera/scheduler/metrics"
)

// soakSwaps is the number of changes the soak test makes:
// CALDERA_SOAK_SWAPS, or 200 (40 with -short).
func soakSwaps(t *testing.T) int {
	if s := os.Getenv("CALDERA_SOAK_SWAPS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("CALDERA_SOAK_SWAPS=%q: %v", s, err)
		}
		return n
	}
	if testing.Short() {
		return 40
	}
	return 200
}

// withVersion returns a module that differs from code only by a custom
// section holding n: a new version (a new digest, compiled anew) that
// decides exactly as code does.
func withVersion(code []byte, n int) []byte {
	payload := append(uleb(uint64(len("caldera.soak"))), "caldera.soak"...)
	payload = append(payload, strconv.Itoa(n)...)
	out := append(bytes.Clone(code), 0) // custom section
	out = append(out, uleb(uint64(len(payload)))...)
	return append(out, payload...)
}

func uleb(v uint64) []byte {
	var b []byte
	for {
		c := byte(v & 0x7f)
		if v >>= 7; v != 0 {
			b = append(b, c|0x80)
			continue
		}
		return append(b, c)
	}
}

// TestSoakSwapsWhileSessionsRun changes the module serving plugin "policy",
// the configuration (naming the plugin or not) and, now and then, removes
// the module file for a while or writes a broken module or configuration,
// hundreds of times through Watch, while
// sessions run back to back on a cluster that every session sees afresh.
// Every module written is a new version (a new digest) of draining's or
// binpack's policy. It checks that no session fails, that every session
// decides exactly as the other sessions with the same configuration and
// policy, so that none mixed two versions, and that neither modules,
// instances nor memory pile up.
func TestSoakSwapsWhileSessionsRun(t *testing.T) {
	modules := map[string][]byte{"draining": moduleBytes(t, "draining.tinygo"), "binpack": moduleBytes(t, "binpack.tinygo")}
	swaps := soakSwaps(t)
	dir := t.TempDir()
	modulePath, confPath := filepath.Join(dir, "policy.wasm"), filepath.Join(dir, "scheduler.yaml")
	// binpack's weight makes its placements differ from nodeorder's alone.
	confs := map[string]string{
		"named":   strings.Replace(confNaming("policy"), "{name: policy}", "{name: policy, arguments: {binpack.weight: 10}}", 1),
		"unnamed": confNaming(),
	}
	writeFile(t, confPath, []byte(confs["named"]))
	// policyOf maps each version written to the policy it carries.
	var policies sync.Map
	version := func(policy string, n int) []byte {
		code := withVersion(modules[policy], n)
		policies.Store(digest(code)[:12], policy)
		return code
	}
	current := version("draining", 0)
	writeFile(t, modulePath, current)
	instancesAtStart := wasmruntime.LiveInstances()
	var failures atomic.Int64
	r := newTestReloader(t, dir, func(o Outcome) {
		if o.Err != nil {
			failures.Add(1)
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = r.Watch(ctx) }()

	cluster := newFixedCluster()
	sched := scheduler.NewWithPolicies(cluster, actionRegistry(), r.Policies())
	// Sessions are checked as they end, so that the test keeps no history
	// that would hide a leak: decisions holds the first decision of each
	// version, and every later session with that version must match it.
	var (
		mu          sync.Mutex
		decisions   = map[string]string{}
		count       = map[string]int{}
		sessions    int
		sessionErrs []error
		mixed       []string
	)
	sessionsDone := make(chan struct{})
	stopSessions := make(chan struct{})
	go func() {
		defer close(sessionsDone)
		for {
			select {
			case <-stopSessions:
				return
			default:
			}
			p, err := sched.RunSession()
			binds := cluster.takeBinds()
			mu.Lock()
			sessions++
			if err != nil {
				sessionErrs = append(sessionErrs, err)
			} else {
				key := policyKey(p)
				if v, ok := policies.Load(strings.TrimPrefix(key, "named ")); ok {
					key = "named " + v.(string)
				}
				if d, ok := decisions[key]; ok && d != binds && len(mixed) < 5 {
					mixed = append(mixed, fmt.Sprintf("session %d with %s decided %s; earlier sessions with the same version decided %s", sessions, key, binds, d))
				} else if !ok {
					decisions[key] = binds
				}
				count[key]++
			}
			mu.Unlock()
		}
	}()

	// The state of the files, and the policy that must be in service.
	conf, module := "named", "draining"
	want := func() string {
		if conf == "unnamed" {
			return "unnamed "
		}
		return "named " + digest(current)[:12]
	}
	settle := func(step int, what string) {
		t.Helper()
		// Generous: under a full parallel test run a Go-toolchain module
		// compiles for several seconds.
		eventually(t, 120*time.Second, fmt.Sprintf("step %d (%s): the reloader to take the files in", step, what), r.settled)
		if got := policyKey(r.Policies().Current()); got != want() {
			t.Fatalf("step %d (%s): serving %q, want %q", step, what, got, want())
		}
	}
	// save writes a file in place or by rename, as tools differ.
	rng := rand.New(rand.NewPCG(1, uint64(swaps)))
	save := func(path string, data []byte) {
		if rng.IntN(2) == 0 {
			writeFile(t, path, data)
		} else {
			reloadtest.RenameInto(t, path, data)
		}
	}
	settle(0, "start")
	callFailures := sumCounter(t, metrics.PluginCallFailures)
	var before usage
	refused, removed := 0, 0
	for step := 1; step <= swaps; step++ {
		if step == 10 {
			before = measure(r) // pools and caches warm
		}
		switch k := rng.IntN(100); {
		case k < 55:
			if module == "draining" {
				module = "binpack"
			} else {
				module = "draining"
			}
			current = version(module, step)
			save(modulePath, current)
			settle(step, "module "+module)
		case k < 75:
			if conf == "named" {
				conf = "unnamed"
			} else {
				conf = "named"
			}
			save(confPath, []byte(confs[conf]))
			settle(step, "configuration "+conf)
		case k < 82 && conf == "named":
			failed := failures.Load()
			if err := os.Remove(modulePath); err != nil {
				t.Fatal(err)
			}
			settle(step, "module removed") // the last good version keeps serving
			save(modulePath, current)
			settle(step, "module back")
			if failures.Load() != failed {
				t.Fatalf("step %d: removing a module the configuration names was reported as a failure", step)
			}
			removed++
		case k < 90 && conf == "named":
			failed := failures.Load()
			save(modulePath, bytes.Repeat([]byte("broken"), 1000))
			settle(step, "broken module")
			if failures.Load() != failed+1 {
				t.Fatalf("step %d: a broken module was not reported", step)
			}
			save(modulePath, current)
			settle(step, "module restored")
			refused++
		case k >= 90:
			failed := failures.Load()
			save(confPath, []byte("tiers: [\n"))
			settle(step, "broken configuration")
			if failures.Load() != failed+1 {
				t.Fatalf("step %d: a broken configuration was not reported", step)
			}
			save(confPath, []byte(confs[conf]))
			settle(step, "configuration restored")
			refused++
		}
	}
	close(stopSessions)
	<-sessionsDone
	after := measure(r)

	mu.Lock()
	defer mu.Unlock()
	if len(sessionErrs) > 0 {
		t.Fatalf("%d sessions failed, e.g. %v", len(sessionErrs), sessionErrs[0])
	}
	if n := sumCounter(t, metrics.PluginCallFailures) - callFailures; n > 0 {
		t.Fatalf("%v calls into the modules failed during the soak", n)
	}
	if len(mixed) > 0 {
		t.Fatalf("sessions decided unlike others with the same version:\n%s", strings.Join(mixed, "\n"))
	}
	// The check has teeth only if the versions decide differently.
	seen := map[string]string{}
	for key, d := range decisions {
		if other, dup := seen[d]; dup {
			t.Fatalf("versions %s and %s decide the same (%s): the soak could not tell them apart", key, other, d)
		}
		seen[d] = key
	}
	if len(decisions) != 3 || len(count) != 3 {
		t.Fatalf("sessions ran with %d versions (%v), want 3", len(decisions), count)
	}
	t.Logf("%d changes (%d refused, %d module removals), %d sessions, none failed; sessions per version %v", swaps, refused, removed, sessions, count)
	t.Logf("before: %s", before)
	t.Logf("after:  %s", after)
	if after.modules > 1 {
		t.Errorf("%d modules open after the soak, want at most the one in service", after.modules)
	}
	// One instance serves the sessions; another may be pooled from a load.
	if after.instances > instancesAtStart+2*int64(after.modules) {
		t.Errorf("%d instances open after the soak (%d before the reloader started, %d modules open), want at most two per module",
			after.instances, instancesAtStart, after.modules)
	}
	// Bounds well above the noise: when Plugin.Close left compiled code in
	// the shared engine, 100 changes grew the heap by 8 MiB and RSS by 39.
	if grown := int64(after.heap) - int64(before.heap); grown > 4<<20 {
		t.Errorf("heap grew by %d MiB over the soak", grown>>20)
	}
	if grown := int64(after.rss) - int64(before.rss); grown > 24<<20 && !raceDetector {
		t.Errorf("RSS grew by %d MiB over the soak", grown>>20)
	}
	if grown := after.goroutines - before.goroutines; grown > 10 {
		t.Errorf("%d more goroutines after the soak", grown)
	}
	r.Close()
	if n := r.LiveModules(); n != 0 {
		t.Errorf("%d modules open after Close, want 0", n)
	}
	if n := wasmruntime.LiveInstances(); n != instancesAtStart {
		t.Errorf("%d instances open after Close, want %d as before the reloader started", n, instancesAtStart)
	}
}

// policyKey names a policy's version: whether the configuration names the
// plugin, and the module serving it.
func policyKey(p *scheduler.Policy) string {
	for _, tier := range p.Config.Tiers {
		for _, o := range tier.Plugins {
			if o.Name == "policy" {
				return "named " + p.Versions["policy"][:12]
			}
		}
	}
	return "unnamed "
}

// settled reports whether the reloader has judged the files as they are
// now.
func (r *Reloader) settled() bool {
	snap := r.readSnapshot()
	r.reloading.Lock()
	defer r.reloading.Unlock()
	return r.tried == snap.fingerprint
}

type usage struct {
	heap, rss           uint64
	goroutines, modules int
	instances           int64
}

func (u usage) String() string {
	return fmt.Sprintf("heap %.1f MiB, RSS %.1f MiB, %d goroutines, %d modules and %d instances open",
		float64(u.heap)/(1<<20), float64(u.rss)/(1<<20), u.goroutines, u.modules, u.instances)
}

// measure returns the process's memory after a full collection.
func measure(r *Reloader) usage {
	// A compile the warmer started for a file changed a moment ago holds
	// tens of MiB while it runs: measure once it has ended.
	for r.warm.compiling() {
		time.Sleep(10 * time.Millisecond)
	}
	goruntime.GC()
	debug.FreeOSMemory()
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	return usage{heap: ms.HeapAlloc, rss: rss(), goroutines: goruntime.NumGoroutine(), modules: r.LiveModules(), instances: wasmruntime.LiveInstances()}
}

// rss reads the resident set size from /proc (0 elsewhere).
func rss() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// sumCounter adds up every series of a counter vector.
func sumCounter(t *testing.T, c *prometheus.CounterVec) float64 {
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, f := range families {
		for _, m := range f.GetMetric() {
			sum += m.GetCounter().GetValue()
		}
	}
	return sum
}
