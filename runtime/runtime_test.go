package runtime

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/runtime/interrupt"
	"github.com/caldera-scheduler/caldera/scheduler/metrics"
)

// buildGuest compiles a test module from testdata/guests with the standard
// Go toolchain, in the guest's folder: a guest that uses the SDK is a Go
// module of its own. The Go build cache makes repeated runs fast.
func buildGuest(t *testing.T, name string, ldflags string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), name+".wasm")
	args := []string{"build", "-buildmode=c-shared", "-o", out}
	if ldflags != "" {
		args = append(args, "-ldflags", ldflags)
	}
	cmd := exec.Command("go", append(args, ".")...)
	cmd.Dir = filepath.Join("testdata", "guests", name)
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building guest %s: %v\n%s", name, err, b)
	}
	return out
}

var (
	rawOnce sync.Once
	rawPath string
	rawErr  error
)

func rawGuest(t *testing.T) string {
	rawOnce.Do(func() {
		dir, err := os.MkdirTemp("", "caldera-guest")
		if err != nil {
			rawErr = err
			return
		}
		rawPath = filepath.Join(dir, "rawabi.wasm")
		cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", rawPath, "./testdata/guests/rawabi")
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
		if b, err := cmd.CombinedOutput(); err != nil {
			rawErr = errors.New(string(b))
		}
	})
	if rawErr != nil {
		t.Fatalf("building rawabi: %v", rawErr)
	}
	return rawPath
}

type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) log(_ int, msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, msg)
}

func (l *logLines) joined() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

func loadRaw(t *testing.T, limits Limits, logs *logLines) *Plugin {
	t.Helper()
	opts := Options{Name: "raw", Limits: limits}
	if logs != nil {
		opts.Log = logs.log
	}
	p, err := Load(context.Background(), rawGuest(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	return p
}

func predicate(t *testing.T, p *Plugin, nodes ...int32) []int32 {
	t.Helper()
	var codes []int32
	code, msg, err := p.Call(context.Background(), abi.HookPredicateBatch,
		abi.Request{Args: map[string]any{"task": 0, "nodes": nodes}}, &codes)
	if err != nil || code != abi.OK {
		t.Fatalf("predicate_batch: code %d %q, %v", code, msg, err)
	}
	return codes
}

func TestLoadDescribesAndCalls(t *testing.T) {
	logs := &logLines{}
	p := loadRaw(t, Limits{}, logs)
	if d := p.Descriptor(); d.Name != "rawabi" || p.Version() != (abi.Version{Major: 1}) {
		t.Errorf("descriptor %+v, version %s", d, p.Version())
	}
	if !p.instrumented {
		t.Error("the module was left to wazero's termination checks, want it instrumented")
	}
	if !p.Implements(abi.HookPredicateBatch) || p.Implements(abi.HookNodeOrderBatch) {
		t.Error("hooks registered other than those the module declared")
	}
	if !strings.Contains(logs.joined(), `hook "from_the_future"`) {
		t.Errorf("an unknown declared hook was not reported: %q", logs.joined())
	}
	if got := predicate(t, p, 1, 2, 3, 4); len(got) != 4 || got[0] != 0 || got[1] != 2 || got[2] != 0 || got[3] != 2 {
		t.Errorf("predicate_batch codes %v, want [0 2 0 2]", got)
	}
	// A hook the module never declared is not sent to it.
	code, _, err := p.Call(context.Background(), abi.HookNodeOrderBatch, abi.Request{}, nil)
	if err == nil || code != abi.UnknownHook {
		t.Errorf("undeclared hook: code %d, err %v", code, err)
	}
}

func TestRefusesAnotherMajorVersion(t *testing.T) {
	path := buildGuest(t, "rawabi", "-X main.abiMajor=2")
	_, err := Load(context.Background(), path, Options{Name: "future"})
	if err == nil || !strings.Contains(err.Error(), "ABI 2.0") || !strings.Contains(err.Error(), "1.x") {
		t.Fatalf("loading an ABI 2 module: %v; want an error naming 2.0 and 1.x", err)
	}
}

func TestRefusesBadFiles(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.wasm")
	empty := filepath.Join(dir, "empty.wasm")
	_ = os.WriteFile(garbage, []byte("#!/bin/sh\necho hi\n"), 0o644)
	_ = os.WriteFile(empty, []byte{0, 'a', 's', 'm', 1, 0, 0, 0}, 0o644) // valid, exports nothing
	for _, tc := range []struct{ path, want string }{
		{garbage, "not a valid Wasm module"},
		{empty, "missing export caldera_abi_version"},
		{filepath.Join(dir, "absent.wasm"), "no such file"},
	} {
		_, err := Load(context.Background(), tc.path, Options{Name: "bad"})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "bad") {
			t.Errorf("%s: %v; want an error naming the plugin and %q", filepath.Base(tc.path), err, tc.want)
		}
	}
	if _, err := Load(context.Background(), empty, Options{Name: "bad"}); err == nil || !strings.Contains(err.Error(), "missing export caldera_call") {
		t.Errorf("every missing export should be listed: %v", err)
	}
	// The host calls exports with a stack of its own, which does not count
	// parameters: a caldera_call that takes only the hook is refused at load.
	oneParam := filepath.Join(dir, "one-param.wasm")
	_ = os.WriteFile(oneParam, moduleWithCallParams(1), 0o644)
	if _, err := Load(context.Background(), oneParam, Options{Name: "bad"}); err == nil || !strings.Contains(err.Error(), "export caldera_call has type (i32) -> i64, want (i32, i32) -> i64") {
		t.Errorf("caldera_call(hook): %v; want its type and the ABI's named", err)
	}
	_, err := Load(context.Background(), rawGuest(t), Options{Name: "pinned", SHA256: strings.Repeat("0", 64)})
	if err == nil || !strings.Contains(err.Error(), "pins sha256:000") {
		t.Errorf("digest pin: %v", err)
	}
}

// A module that exports the interrupt global's name could be instrumented
// code sharing the compilation cache with modules that need wazero's
// checks: it is refused, by name, with or without a deadline.
func TestRefusesReservedExport(t *testing.T) {
	code, err := os.ReadFile(rawGuest(t))
	if err != nil {
		t.Fatal(err)
	}
	m, err := interrupt.Instrument(code)
	if err != nil {
		t.Fatal(err)
	}
	for _, limits := range []Limits{{}, {MemoryLimitPages: 512, MaxReplyBytes: 1 << 20}} {
		_, err = LoadBytes(context.Background(), m.Code, Options{Name: "twice", Limits: limits})
		if err == nil || !strings.Contains(err.Error(), "plugin twice: the module exports caldera_interrupt, a name the host reserves") {
			t.Errorf("loading an instrumented module, call timeout %s: %v", limits.CallTimeout, err)
		}
	}
}

// Each misbehaving hook fails only its own call, with the plugin, the hook
// and the cause named; the instance is dropped and the next call works.
func TestHostileHooksFailTheirCallOnly(t *testing.T) {
	// The deadline leaves the memory hog time to hit its limit on a loaded
	// machine; the infinite loop then costs that long.
	p := loadRaw(t, Limits{MemoryLimitPages: 512, CallTimeout: 3 * time.Second, MaxReplyBytes: 1 << 20}, nil)
	for _, tc := range []struct {
		hook abi.Hook
		want error
	}{
		{abi.HookJobReady, ErrTrap},
		{abi.HookOverused, ErrTimeout},
		{abi.HookAllocatable, ErrNoMem},
		{abi.HookJobStarving, ErrReply},
		{abi.HookJobValid, ErrReply},
	} {
		start := time.Now()
		_, _, err := p.Call(context.Background(), tc.hook, abi.Request{}, nil)
		var ce *CallError
		if !errors.As(err, &ce) || !errors.Is(err, tc.want) {
			t.Errorf("%s: %v; want %v", tc.hook, err, tc.want)
			continue
		}
		if !strings.Contains(err.Error(), "plugin raw, hook "+tc.hook.String()) {
			t.Errorf("%s: error %q does not name the plugin and hook", tc.hook, err)
		}
		t.Logf("%s: %v (%s)", tc.hook, err, time.Since(start))
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("%s took %s", tc.hook, took)
		}
		if got := predicate(t, p, 1, 2); len(got) != 2 || got[1] != 2 {
			t.Errorf("after %s the plugin answers %v", tc.hook, got)
		}
	}
}

// moduleWithCallParams assembles a module with the ABI's exports, each
// returning 0, whose caldera_call takes n i32 parameters.
func moduleWithCallParams(n int) []byte {
	section := func(id byte, body ...byte) []byte { return append([]byte{id, byte(len(body))}, body...) }
	name := func(s string) []byte { return append([]byte{byte(len(s))}, s...) }
	call := append([]byte{0x60, byte(n)}, bytes.Repeat([]byte{0x7f}, n)...)
	types := append([]byte{4, 0x60, 0, 1, 0x7f, 0x60, 1, 0x7f, 1, 0x7f, 0x60, 0, 1, 0x7e}, append(call, 1, 0x7e)...)
	var exports []byte
	exports = append(append(exports, 5), append(name("memory"), 2, 0)...)
	for i, e := range []string{"caldera_abi_version", "caldera_buffer", "caldera_describe", "caldera_call"} {
		exports = append(exports, append(name(e), 0, byte(i))...)
	}
	code := []byte{4, 4, 0, 0x41, 0, 0x0b, 4, 0, 0x41, 0, 0x0b, 4, 0, 0x42, 0, 0x0b, 4, 0, 0x42, 0, 0x0b}
	m := []byte{0, 'a', 's', 'm', 1, 0, 0, 0}
	m = append(m, section(1, types...)...)
	m = append(m, section(3, 4, 0, 1, 2, 3)...)
	m = append(m, section(5, 1, 0, 1)...)
	m = append(m, section(7, exports...)...)
	return append(m, section(10, code...)...)
}

// A reply whose status is not OK is a failed call although the call itself
// worked: it counts in Failures and in caldera_plugin_call_failures_total
// (cause "status"), and FirstFailure names it. With the metrics off (a
// self-test), it counts in Failures alone.
func TestStatusReplyCountsAsFailure(t *testing.T) {
	path := buildGuest(t, "rawabi", "-X main.hooks=predicate_batch,node_order_batch")
	p, err := Load(context.Background(), path, Options{Name: "status-reply", Limits: DefaultLimits()})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	failures := func() float64 {
		return testutil.ToFloat64(metrics.PluginCallFailures.WithLabelValues("status-reply", "node_order_batch", "status"))
	}
	code, _, err := p.Call(context.Background(), abi.HookNodeOrderBatch, abi.Request{}, nil)
	if err != nil || code != abi.UnknownHook {
		t.Fatalf("node_order_batch, which the module declares and does not serve: code %d, err %v; want status 64 and no error", code, err)
	}
	var status *StatusError
	if p.Failures() != 1 || !errors.As(p.FirstFailure(), &status) || status.Code != abi.UnknownHook || !strings.Contains(status.Message, "unknown hook") {
		t.Fatalf("after a status reply: %d failures, first %v; want 1 naming status 64", p.Failures(), p.FirstFailure())
	}
	if got := failures(); got != 1 {
		t.Errorf("caldera_plugin_call_failures_total{cause=status} is %v, want 1", got)
	}
	p.SetMetered(false)
	_, _, _ = p.Call(context.Background(), abi.HookNodeOrderBatch, abi.Request{}, nil)
	p.SetMetered(true)
	if p.Failures() != 2 || failures() != 1 {
		t.Errorf("unmetered status reply: %d failures, metric %v; want 2 and still 1", p.Failures(), failures())
	}
	predicate(t, p, 1, 2)
	if p.Failures() != 2 {
		t.Errorf("an OK reply counted as a failure: %d", p.Failures())
	}
}

// LiveInstances follows every instance: made for the descriptor and kept
// in the pool, closed after a failed call, made again for the next call,
// and all closed with the plugin, once.
func TestLiveInstancesFollowTheirPlugin(t *testing.T) {
	before := LiveInstances()
	p := loadRaw(t, DefaultLimits(), nil)
	if got := LiveInstances() - before; got != 1 {
		t.Fatalf("%d instances open after loading, want 1 (the describing one, pooled)", got)
	}
	if _, _, err := p.Call(context.Background(), abi.HookJobReady, abi.Request{}, nil); err == nil {
		t.Fatal("job_ready, which traps, did not fail")
	}
	if got := LiveInstances() - before; got != 0 {
		t.Fatalf("%d instances open after a trap, want 0: the trapped one is closed", got)
	}
	predicate(t, p, 1, 2)
	if got := LiveInstances() - before; got != 1 {
		t.Fatalf("%d instances open after a call on a fresh instance, want 1", got)
	}
	_ = p.Close(context.Background())
	_ = p.Close(context.Background())
	if got := LiveInstances() - before; got != 0 {
		t.Fatalf("%d instances open after Close (twice), want 0", got)
	}
}
