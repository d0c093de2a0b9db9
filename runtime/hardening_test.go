package runtime

import (
	"context"
	"errors"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/scheduler/conf"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
	"github.com/caldera-scheduler/caldera/scheduler/metrics"
)

// patient limits: the default ones with a deadline that a loaded machine
// meets, for the modes that do not loop.
func patient() Limits {
	l := DefaultLimits()
	l.CallTimeout = 30 * time.Second
	return l
}

func loadMisbehaving(t *testing.T, mode, hooks string, limits Limits, log func(int, string)) *Plugin {
	t.Helper()
	p, err := Load(context.Background(), buildGuest(t, "rawabi", "-X main.misbehave="+mode+" -X main.hooks="+hooks),
		Options{Name: "misbehaving-" + mode, Limits: limits, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	return p
}

// A module that logs its 32 MiB buffer as one line, over and over, or
// writes 1 MiB to stdout over and over, misses its deadline and is stopped
// there; what reaches the log is the byte burst, cut into 4 KiB lines.
func TestGuestOutputFloodIsBoundedAndStopped(t *testing.T) {
	for _, mode := range []string{"log", "stdout"} {
		t.Run(mode, func(t *testing.T) {
			logs := &logLines{}
			limits := DefaultLimits()
			limits.CallTimeout = 200 * time.Millisecond
			p := loadMisbehaving(t, mode, "job_ready", limits, logs.log)
			var ready bool
			_, _, err := p.Call(context.Background(), abi.HookJobReady, abi.Request{Args: map[string]any{"job": 0}}, &ready)
			if !errors.Is(err, ErrTimeout) {
				t.Fatalf("flooding call: %v, want ETIMEOUT", err)
			}
			logs.mu.Lock()
			defer logs.mu.Unlock()
			bytes := 0
			for _, line := range logs.lines {
				bytes += len(line)
			}
			if bytes > logByteBurst+len(logs.lines)*200 {
				t.Errorf("%d bytes in %d lines reached the log, want at most the burst of %d and markers", bytes, len(logs.lines), logByteBurst)
			}
			if last := logs.lines[len(logs.lines)-1]; !strings.Contains(last, "more bytes cut") {
				t.Errorf("last line does not say it was cut: %.100q", last)
			}
		})
	}
}

// A reply of 16 million nil keys, 16 MB, is refused before it is decoded:
// it holds more values than a module of 64 MiB may make the host decode.
func TestReplyOfMillionsOfValuesIsRefused(t *testing.T) {
	p := loadMisbehaving(t, "nilkeys", "job_order_keys", patient(), nil)
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	var keys []abi.Key
	_, _, err := p.Call(context.Background(), abi.HookJobOrderKeys, abi.Request{Args: map[string]any{"jobs": []int32{0, 1}}}, &keys)
	goruntime.ReadMemStats(&after)
	if !errors.Is(err, ErrReply) || !strings.Contains(err.Error(), "more than 2097152 values") {
		t.Fatalf("16 million nil keys: %v, want EREPLY naming the limit of values", err)
	}
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 64<<20 {
		t.Errorf("the host allocated %d MiB for the refused reply, want less than the module's 64 MiB", grown>>20)
	}
}

// Order keys of the wrong number are a failed call like a wrong number of
// verdicts: counted with cause "reply", and an ignorable plugin is skipped
// for the rest of the session (its job_ready is not asked).
func TestWrongNumberOfKeysIsAFailedCall(t *testing.T) {
	const name = "misbehaving-wrongkeys"
	p := loadMisbehaving(t, "wrongkeys", "session_open,session_close,task_order_keys,job_ready", patient(), nil)
	enabled := true
	cfg := &conf.Config{Tiers: []conf.Tier{{Plugins: []conf.PluginOption{{Name: name, EnabledTaskOrder: &enabled, EnabledJobReady: &enabled}}}}}
	ssn, err := framework.OpenSession(cloningCache{gangOnSmallNodes()}, framework.Registry{name: Factory(name, p, Policy{Ignorable: true})}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ssn.Close()
	failures := func() float64 {
		return testutil.ToFloat64(metrics.PluginCallFailures.WithLabelValues(name, abi.HookTaskOrderKeys.String(), "reply"))
	}
	readyCalls := func() float64 {
		return testutil.ToFloat64(metrics.PluginCalls.WithLabelValues(name, abi.HookJobReady.String()))
	}
	before, ready := failures(), readyCalls()
	job := ssn.Jobs["ns/pg"]
	ssn.TaskOrderFn(job.Tasks["uid-p0"], job.Tasks["uid-p1"])
	if n := failures() - before; n != 1 {
		t.Errorf("%v failures with cause reply after no keys for two tasks, want 1", n)
	}
	ssn.JobReady(job)
	if n := readyCalls() - ready; n != 0 {
		t.Errorf("job_ready asked %v times of the skipped plugin, want 0", n)
	}
	if p.Failures() == 0 {
		t.Error("the plugin's own count of failures did not move")
	}
}

// A module that recurses without end is stopped by its stack budget, with
// an error that says so, and its failing call costs the host a bounded
// amount of memory: 11 MB, where wazero's own limit let it take 142 MB.
func TestEndlessRecursionIsStoppedByTheStackBudget(t *testing.T) {
	p := loadMisbehaving(t, "recurse", "job_ready", patient(), nil)
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	var ready bool
	_, _, err := p.Call(context.Background(), abi.HookJobReady, abi.Request{Args: map[string]any{"job": 0}}, &ready)
	goruntime.ReadMemStats(&after)
	if !errors.Is(err, ErrTrap) || !strings.Contains(err.Error(), "stack budget") {
		t.Fatalf("endless recursion: %v, want ETRAP naming the stack budget", err)
	}
	const bound = 40 << 20
	if got := after.TotalAlloc - before.TotalAlloc; got > bound {
		t.Errorf("the failing call allocated %d MB of host memory, want under %d", got>>20, bound>>20)
	}
}

// Closing a plugin while another goroutine's call runs in it (an event
// handler's, at shutdown) waits for the call to end before the instance's
// memory is unmapped: the call, which reads the guest's memory from the
// host on every log line, ends at its deadline instead of faulting.
func TestCloseWaitsForCallsUnderWay(t *testing.T) {
	limits := DefaultLimits()
	limits.CallTimeout = 300 * time.Millisecond
	p, err := Load(context.Background(), buildGuest(t, "rawabi", "-X main.misbehave=log -X main.hooks=job_ready"),
		Options{Name: "closing", Limits: limits, Log: func(int, string) {}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		var ready bool
		_, _, err := p.Call(context.Background(), abi.HookJobReady, abi.Request{Args: map[string]any{"job": 0}}, &ready)
		done <- err
	}()
	for p.busy.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond) // well inside the call
	if err := p.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, ErrTimeout) {
		t.Errorf("the call under way at Close: %v, want ETIMEOUT", err)
	}
	if p.keepMemory.Load() {
		t.Error("the call ended within its deadline, yet its memory was left mapped")
	}
}
