package runtime

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/caldera-scheduler/caldera/abi"
)

// Benchmarks of the ABI's cost per hook and of loading, on the example
// ports that `make plugins` builds; they skip when those are missing.
//
//	go test -run '^$' -bench . -benchmem ./runtime/

func port(b *testing.B, name string) string {
	path := filepath.Join("..", "build", "plugins", name+".wasm")
	if _, err := os.Stat(path); err != nil {
		b.Skipf("%s is not built (make plugins)", path)
	}
	return path
}

// benchView is a small cluster: nodes, jobs of two tasks each.
func benchView(nodes, jobs int) abi.View {
	var v abi.View
	for i := 0; i < nodes; i++ {
		r := abi.Resource{MilliCPU: 32000, Memory: 128 << 30}
		v.Nodes = append(v.Nodes, abi.Node{Name: fmt.Sprintf("n%d", i), Allocatable: r, Idle: r,
			Labels: map[string]string{"kubernetes.io/hostname": fmt.Sprintf("n%d", i), "zone": "a"}})
	}
	v.Queues = []abi.Queue{{Name: "default", Weight: 1}}
	for j := 0; j < jobs; j++ {
		v.Jobs = append(v.Jobs, abi.Job{Namespace: "ns", Name: fmt.Sprintf("j%d", j), Priority: int32(j % 7), MinAvailable: 2})
		for k := 0; k < 2; k++ {
			v.Tasks = append(v.Tasks, abi.Task{Namespace: "ns", Name: fmt.Sprintf("j%d-%d", j, k), Job: int32(j), Node: -1,
				Status: "Pending", Request: abi.Resource{MilliCPU: 1000, Memory: 1 << 30}})
		}
	}
	return v
}

// openLease loads a port and opens a session on one leased instance.
func openLease(b *testing.B, name string, limits Limits, view abi.View) *Lease {
	p, err := Load(context.Background(), port(b, name), Options{Name: name, Limits: limits})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = p.Close(context.Background()) })
	l, err := p.Lease(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(l.Release)
	if code, msg, err := l.Call(context.Background(), abi.HookSessionOpen, abi.Request{Args: abi.OpenArgs{View: view, Arguments: map[string]any{}}}, nil); err != nil || code != abi.OK {
		b.Fatalf("session_open: %d %s %v", code, msg, err)
	}
	return l
}

func BenchmarkHook(b *testing.B) {
	view := benchView(100, 50)
	nodes := func(n int) []int32 { return sequence(n) }
	limits := DefaultLimits()
	noDeadline := limits
	noDeadline.CallTimeout = 0
	for _, build := range []string{"tinygo", "go", "rust"} {
		for _, c := range []struct {
			name   string
			port   string
			limits Limits
			hook   abi.Hook
			args   any
			out    func() any
		}{
			{"node_order_batch/nodes=1", "binpack", limits, abi.HookNodeOrderBatch, abi.BatchArgs{Task: 0, Nodes: nodes(1)}, func() any { return &[]float64{} }},
			{"node_order_batch/nodes=1/no-deadline", "binpack", noDeadline, abi.HookNodeOrderBatch, abi.BatchArgs{Task: 0, Nodes: nodes(1)}, func() any { return &[]float64{} }},
			{"node_order_batch/nodes=100", "binpack", limits, abi.HookNodeOrderBatch, abi.BatchArgs{Task: 0, Nodes: nodes(100)}, func() any { return &[]float64{} }},
			{"predicate_batch/nodes=100", "draining", limits, abi.HookPredicateBatch, abi.BatchArgs{Task: 0, Nodes: nodes(100)}, func() any { return &[]abi.Verdict{} }},
			{"job_order_keys/jobs=50", "priority", limits, abi.HookJobOrderKeys, abi.JobsArgs{Jobs: sequence(50)}, func() any { return &[]abi.Key{} }},
			{"job_starving", "priority", limits, abi.HookJobStarving, abi.JobArgs{Job: 3}, func() any { var v bool; return &v }},
		} {
			b.Run(build+"/"+c.name, func(b *testing.B) {
				l := openLease(b, c.port+"."+build, c.limits, view)
				out := c.out()
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if code, msg, err := l.Call(context.Background(), c.hook, abi.Request{Args: c.args}, out); err != nil || code != abi.OK {
						b.Fatalf("%s: %d %s %v", c.hook, code, msg, err)
					}
				}
			})
		}
	}
}

// BenchmarkLoad measures a plugin becoming ready to serve (compiled,
// instantiated, described): cold without a compilation cache, warm from a
// cache directory that a previous process filled (each iteration opens the
// directory afresh, as a restarted scheduler does).
func BenchmarkLoad(b *testing.B) {
	for _, name := range []string{"binpack.tinygo", "binpack.go"} {
		path := port(b, name)
		b.Run(name+"/cold", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				p, err := Load(context.Background(), path, Options{Name: name})
				if err != nil {
					b.Fatal(err)
				}
				_ = p.Close(context.Background())
			}
		})
		b.Run(name+"/warm-disk-cache", func(b *testing.B) {
			dir := b.TempDir()
			fill, err := wazero.NewCompilationCacheWithDir(dir)
			if err != nil {
				b.Fatal(err)
			}
			p, err := Load(context.Background(), path, Options{Name: name, Cache: fill})
			if err != nil {
				b.Fatal(err)
			}
			_ = p.Close(context.Background())
			_ = fill.Close(context.Background())
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				cache, err := wazero.NewCompilationCacheWithDir(dir)
				if err != nil {
					b.Fatal(err)
				}
				p, err := Load(context.Background(), path, Options{Name: name, Cache: cache})
				if err != nil {
					b.Fatal(err)
				}
				_ = p.Close(context.Background())
				_ = cache.Close(context.Background())
			}
		})
	}
}

// BenchmarkDecodeReply reads a job_ready answer ([0, "", true]) by the
// short path DecodeReply takes and by reflection.
func BenchmarkDecodeReply(b *testing.B) {
	raw := []byte{0x93, 0x00, 0xa0, 0xc3}
	for _, c := range []struct {
		name   string
		decode func([]byte, any) (abi.Code, string, error)
	}{{"short", DecodeReply}, {"reflection", decodeReplyReflect}} {
		b.Run(c.name, func(b *testing.B) {
			var yes bool
			for b.Loop() {
				if _, _, err := c.decode(raw, &yes); err != nil || !yes {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEncodeView encodes and digests a view of 1,000 nodes, 1,000
// jobs and 2,000 tasks object by object, by hand and by reflection.
func BenchmarkEncodeView(b *testing.B) {
	v := benchView(1000, 1000)
	b.Run("by-hand", func(b *testing.B) {
		for b.Loop() {
			encodeWire(v, handles{})
		}
	})
	b.Run("reflection", func(b *testing.B) {
		var buf bytes.Buffer
		enc := msgpack.NewEncoder(&buf)
		enc.SetSortMapKeys(true)
		for b.Loop() {
			for _, list := range []any{v.Nodes, v.Queues, v.Jobs, v.Tasks} {
				rv := reflect.ValueOf(list)
				for i := range rv.Len() {
					buf.Reset()
					if err := enc.Encode(rv.Index(i).Addr().Interface()); err != nil {
						b.Fatal(err)
					}
					fnv64a(buf.Bytes())
				}
			}
		}
	})
}
