package benchmarks

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/caldera-scheduler/caldera/hostplugins"
	"github.com/caldera-scheduler/caldera/runtime/reload"
	"github.com/caldera-scheduler/caldera/runtime/reload/reloadtest"
	"github.com/caldera-scheduler/caldera/scheduler"
	"github.com/caldera-scheduler/caldera/scheduler/actions"
)

// BenchmarkReload measures how soon a module dropped into the plugin
// directory serves: from the rename that lands the file to the policy
// being published (the next session uses it), with the production
// debounce (200 ms) and sessions running back to back on 100 nodes and
// 100 pods. Each iteration is one swap; run with -benchtime 100x for the
// p99 over 100 swaps that docs/performance.md reports.
//
//   - new: every swap lands a version never seen before (a custom section
//     changes its digest), so it is compiled, instantiated and self-tested.
//   - cached: swaps alternate between two versions already in the
//     --wasm-cache-dir cache, as after a restart or a rollback.
func BenchmarkReload(b *testing.B) {
	for _, module := range []string{"binpack.tinygo", "binpack.go", "binpack.rust"} {
		for _, mode := range []string{"new", "cached"} {
			b.Run(module+"/"+mode, func(b *testing.B) { benchReload(b, module, mode == "cached") })
		}
	}
}

func benchReload(b *testing.B, module string, cached bool) {
	code, err := os.ReadFile("../build/plugins/" + module + ".wasm")
	if err != nil {
		b.Skipf("%s.wasm is not built (make plugins)", module)
	}
	dir := b.TempDir()
	modulePath := filepath.Join(dir, "policy.wasm")
	conf := fmt.Sprintf(binpackConf, "policy")
	if err := os.WriteFile(filepath.Join(dir, "scheduler.yaml"), []byte(conf), 0o644); err != nil {
		b.Fatal(err)
	}
	versions := [][]byte{versionOf(code, 0), versionOf(code, 1)}
	reloadtest.RenameInto(b, modulePath, versions[0])
	cache, err := wazero.NewCompilationCacheWithDir(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	var (
		mu        sync.Mutex // Report runs on the watch's goroutine
		loadTimes []time.Duration
	)
	r, err := reload.New(context.Background(), reload.Options{
		ConfigPath: filepath.Join(dir, "scheduler.yaml"),
		PluginDir:  dir,
		Native:     hostplugins.Registry,
		Actions:    actions.Registry(),
		Cache:      cache,
		Report: func(o reload.Outcome) {
			mu.Lock()
			defer mu.Unlock()
			for _, c := range o.Changes {
				loadTimes = append(loadTimes, c.LoadTime)
			}
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	if cached { // both versions compiled once, into the on-disk cache
		reloadtest.RenameInto(b, modulePath, versions[1])
		if out := r.Reload(context.Background()); out.Err != nil {
			b.Fatal(out.Err)
		}
		loadTimes = nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		_ = r.Watch(ctx)
	}()
	time.Sleep(100 * time.Millisecond) // the watch is set up

	w := Workload{Nodes: 100, Gangs: 20, GangSize: 5}
	sched := scheduler.NewWithPolicies(&snapshotCache{base: w.Cluster()}, actions.Registry(), r.Policies())
	var sessions atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			if _, err := sched.RunSession(); err != nil {
				b.Error(err)
				return
			}
			sessions.Add(1)
		}
	}()

	serving := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		next := versions[(i+1)%2]
		if !cached {
			next = versionOf(code, i+2)
		}
		want := digestOf(next)
		start := time.Now()
		reloadtest.RenameInto(b, modulePath, next)
		for r.Policies().Current().Versions["policy"] != want {
			if time.Since(start) > time.Minute {
				b.Fatalf("swap %d: not serving after a minute", i)
			}
			time.Sleep(time.Millisecond)
		}
		serving = append(serving, time.Since(start))
	}
	b.StopTimer()
	cancel()
	<-done
	<-watched // the last swap's report has been made
	slices.Sort(serving)
	slices.Sort(loadTimes)
	b.ReportMetric(ms(quantile(serving, 0.5)), "p50-ms")
	b.ReportMetric(ms(quantile(serving, 0.99)), "p99-ms")
	b.ReportMetric(ms(serving[len(serving)-1]), "max-ms")
	if len(loadTimes) > 0 {
		b.ReportMetric(ms(quantile(loadTimes, 0.5)), "load-p50-ms")
	}
	b.ReportMetric(float64(sessions.Load())/float64(b.N), "sessions/swap")
}

// versionOf returns code with a custom section holding n: a module with
// its own digest that behaves exactly as code.
func versionOf(code []byte, n int) []byte {
	name := "caldera.bench"
	payload := append([]byte{byte(len(name))}, name...)
	payload = append(payload, strconv.Itoa(n)...)
	out := append(bytes.Clone(code), 0, byte(len(payload))) // fits one LEB128 byte
	return append(out, payload...)
}

func digestOf(code []byte) string {
	sum := sha256.Sum256(code)
	return hex.EncodeToString(sum[:])
}

// quantile is the nearest-rank quantile of sorted samples.
func quantile(sorted []time.Duration, q float64) time.Duration {
	rank := int(math.Ceil(q * float64(len(sorted))))
	return sorted[max(rank, 1)-1]
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
