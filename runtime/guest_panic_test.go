package runtime

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"testing"

	"github.com/caldera-scheduler/caldera/scheduler/conf"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// A Go guest's panic is one failure, naming the message and the guest's
// frames with their files, and nothing of it reaches the log line by line.
func TestGuestPanicIsOneFailure(t *testing.T) {
	var lines []string
	record := func(level int, msg string) { lines = append(lines, msg) }
	p, err := Load(context.Background(), buildGuest(t, "hostile", ""), Options{Name: "hostile", Limits: DefaultLimits(), Log: record})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	cfg := &conf.Config{Tiers: []conf.Tier{{Plugins: []conf.PluginOption{{Name: "hostile",
		Arguments: framework.Arguments{"hostile.hook": "session_open", "hostile.mode": "trap"}}}}}}
	ssn, err := framework.OpenSession(cloningCache{gangOnSmallNodes()}, framework.Registry{"hostile": Factory("hostile", p, Policy{})}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ssn.Close()
	failure := p.FirstFailure()
	want := regexp.MustCompile(`hook session_open: ETRAP: the module trapped: panic: hostile: trap in session_open\n` +
		`\tat main\.\(\*hostile\)\.misbehave \(main\.go:\d+\)\n` +
		`\tat main\.\(\*hostile\)\.OnSessionOpen \(main\.go:\d+\)\n` +
		`\tat github\.com/caldera-scheduler/caldera/guest-sdk/go\.\(\*host\)\.open \(dispatch\.go:\d+\)$`)
	if failure == nil || !want.MatchString(failure.Error()) || !errors.Is(failure, ErrTrap) {
		t.Errorf("failure %v, want one matching %s", failure, want)
	}
	if len(lines) > 0 {
		t.Errorf("the panic also reached the log as %d lines: %q", len(lines), lines)
	}
}

// The reports of TinyGo and of the Rust SDK carry the message only: the
// frames come from wazero's trace, without the module's name, signatures,
// the runtimes' frames and what lies outside the SDK's dispatch; a Rust
// name is demangled. A hook the compiler inlined into the dispatch is said
// to be there.
func TestPanicErrorReadsEachRuntime(t *testing.T) {
	for _, tc := range []struct {
		name, module string
		report       []string
		trap, want   string
	}{{
		name: "tinygo", module: "main",
		report: []string{"panic: pack: cannot score empty"},
		trap: "wasm error: unreachable\nwasm stack trace:\n" +
			"\tmain.runtime._panic(i32,i32)\n" +
			"\tmain.main.explode(i32,i32)\n" +
			"\tmain.(*github.com/caldera-scheduler/caldera/guest-sdk/go.host).nodeOrder$thunk(i32,i32,i32)\n" +
			"\tmain.github.com/caldera-scheduler/caldera/guest-sdk/go.exportCall#wasmexport(i32,i32) i64",
		want: "ETRAP: the module trapped: panic: pack: cannot score empty\n" +
			"\tat main.explode\n" +
			"\tat (*github.com/caldera-scheduler/caldera/guest-sdk/go.host).nodeOrder$thunk",
	}, {
		name:   "tinygo inlined",
		report: []string{"panic: pack: cannot score empty"},
		trap: "wasm error: unreachable\nwasm stack trace:\n" +
			"\t.runtime._panic(i32,i32)\n" +
			"\t.(*github.com/caldera-scheduler/caldera/guest-sdk/go.host).nodeOrder$thunk(i32,i32,i32)",
		want: "ETRAP: the module trapped: panic: pack: cannot score empty\n" +
			"\tat (*github.com/caldera-scheduler/caldera/guest-sdk/go.host).nodeOrder$thunk, the SDK's dispatch of the hook, into which the compiler inlined the hook's code",
	}, {
		name:   "rust sdk",
		report: []string{"panic: pack: cannot score empty (src/lib.rs:34:17)"},
		trap: "wasm error: unreachable\nwasm stack trace:\n" +
			"\t.rust_panic()\n" +
			"\t._ZN3std9panicking20rust_panic_with_hook17h1b1329eaa36c7fa5E(i32)\n" +
			"\t._ZN4core9panicking9panic_fmt17h9ec1c8305a7da9aeE(i32,i32)\n" +
			"\t._ZN4pack4Pack5score17h0123456789abcdefE(i32)\n" +
			"\t._ZN75_$LT$caldera..module..Module$LT$P$GT$$u20$as$u20$caldera..module..Serve$GT$4call17hf35f42a487cdcf19E(i32,i32,i32,i32,i32)\n" +
			"\t.caldera_call(i32,i32) i64",
		want: "ETRAP: the module trapped: panic: pack: cannot score empty (src/lib.rs:34:17)\n" +
			"\tat pack::Pack::score\n" +
			"\tat <caldera::module::Module<P> as caldera::module::Serve>::call",
	}, {
		name:   "rust std",
		report: []string{"thread '<unnamed>' panicked at src/lib.rs:3:5:", "pack: cannot score empty", "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace"},
		trap:   "wasm error: unreachable",
		want:   "ETRAP: the module trapped: panic at src/lib.rs:3:5: pack: cannot score empty",
	}, {
		name: "go fatal error",
		report: []string{"fatal error: concurrent map writes", "", "goroutine 1 [running]:",
			"runtime.throw({0x1, 0x2})", "\t/go/src/runtime/panic.go:1023 +0x5",
			"main.(*p).fill(...)", "\t/src/pack/main.go:40 +0x3",
			"github.com/caldera-scheduler/caldera/guest-sdk/go.(*host).open(0x1)", "\t/sdk/dispatch.go:503 +0x2a",
			"github.com/caldera-scheduler/caldera/guest-sdk/go.exportCall(0x1, 0x8c5)", "\t/sdk/exports.go:38 +0x3", ""},
		trap: "wasm error: unreachable\nwasm stack trace:\n\t.runtime.abort(i32) i32",
		want: "ETRAP: the module trapped: fatal error: concurrent map writes\n" +
			"\tat main.(*p).fill (main.go:40)\n" +
			"\tat github.com/caldera-scheduler/caldera/guest-sdk/go.(*host).open (dispatch.go:503)",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			err := panicError(tc.report, errors.New(tc.trap), tc.module)
			if err.Error() != tc.want || !errors.Is(err, ErrTrap) {
				t.Errorf("got\n%s\nwant\n%s", err, tc.want)
			}
		})
	}
}

// A call that prints a panic's first line and returns normally has the
// lines logged as any others.
func TestPanicLinesOfACallThatReturnsAreLogged(t *testing.T) {
	var lines []string
	w := &guestOutput{logs: newLogLimiter(func(_ int, msg string) { lines = append(lines, msg) }), level: 1}
	_, _ = w.Write([]byte("before\npanic: not really\n\nafter"))
	if report := w.endCall(false); report != nil {
		t.Errorf("report %q of a call that returned", report)
	}
	if want := []string{"before", "panic: not really", "after"}; !slices.Equal(lines, want) {
		t.Errorf("logged %q, want %q", lines, want)
	}
}
