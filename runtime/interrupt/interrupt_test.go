package interrupt

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// spinner is (module (memory 1) (func (export "spin") (loop (br 0)))): no
// global and no export of a global, so Instrument must add both sections.
var (
	spinnerHead = []byte{
		0x00, 'a', 's', 'm', 0x01, 0x00, 0x00, 0x00,
		0x01, 0x04, 0x01, 0x60, 0x00, 0x00, // type: func () -> ()
		0x03, 0x02, 0x01, 0x00, // function 0 has type 0
		0x05, 0x03, 0x01, 0x00, 0x01, // memory: one, at least 1 page
	}
	spinnerExports = []byte{0x07, 0x08, 0x01, 0x04, 's', 'p', 'i', 'n', 0x00, 0x00}           // export "spin"
	spinnerCode    = []byte{0x0a, 0x09, 0x01, 0x07, 0x00, 0x03, 0x40, 0x0c, 0x00, 0x0b, 0x0b} // loop br 0 end end
	spinner        = join(spinnerHead, spinnerExports, spinnerCode)
)

func join(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

func TestInterruptStopsAnEndlessLoop(t *testing.T) {
	m, err := Instrument(spinner)
	if err != nil {
		t.Fatal(err)
	}
	if m.Loops != 1 {
		t.Fatalf("instrumented %d loops, want 1", m.Loops)
	}
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx) // no termination checks of wazero's
	defer rt.Close(ctx)
	mod, err := rt.Instantiate(ctx, m.Code)
	if err != nil {
		t.Fatalf("the instrumented module does not instantiate: %v", err)
	}
	flag, ok := mod.ExportedGlobal(Export).(api.MutableGlobal)
	if !ok {
		t.Fatalf("no mutable global exported as %s", Export)
	}
	if flag.Get() != 0 {
		t.Fatalf("the interrupt starts at %d, want 0", flag.Get())
	}
	done := make(chan error, 1)
	go func() {
		_, err := mod.ExportedFunction("spin").Call(ctx)
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("spin returned before it was interrupted: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	awaitCollection(t)
	interruptAndAwaitTrap(t, mod, "spin", done)
}

// awaitCollection runs a garbage collection while a guest runs. Native
// code cannot be preempted: without the checks' exits to Go, the
// collection would wait for the guest forever, and so would everything
// else (the test's own timer included, so a failure is a hung test).
func awaitCollection(t *testing.T) {
	t.Helper()
	collected := make(chan struct{})
	go func() {
		runtime.GC()
		close(collected)
	}()
	select {
	case <-collected:
	case <-time.After(10 * time.Second):
		t.Fatal("a garbage collection waited 10 s for the running guest")
	}
}

// interruptAndAwaitTrap sets mod's interrupt flag and waits for the call
// to fn, whose outcome done brings, to end in the unreachable trap.
func interruptAndAwaitTrap(t *testing.T, mod api.Module, fn string, done <-chan error) {
	t.Helper()
	mod.ExportedGlobal(Export).(api.MutableGlobal).Set(1)
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "unreachable") {
			t.Fatalf("%s ended with %v, want the unreachable trap", fn, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%s still running 10 s after the interrupt was set", fn)
	}
}

func TestInstrumentRefuses(t *testing.T) {
	for name, code := range map[string][]byte{
		"not wasm":    []byte("hello, world"),
		"truncated":   spinner[:len(spinner)-3],
		"bad opcode":  join(spinner[:len(spinner)-6], []byte{0x06, 0x40, 0x01, 0x0b, 0x0b, 0x0b}),
		"no memory":   join(spinnerHead[:18], spinnerExports, spinnerCode),
		"bad section": join(spinner, []byte{0x63, 0x00}),
	} {
		if _, err := Instrument(code); err == nil {
			t.Errorf("%s: instrumented, want an error", name)
		}
	}
	for _, name := range []string{Export, StackExport} {
		exported := join(spinnerHead, []byte{0x07, byte(4 + len(name)), 0x01, byte(len(name))}, []byte(name), []byte{0x00, 0x00}, spinnerCode)
		_, err := Instrument(exported)
		if err == nil || !errors.Is(err, ErrReserved) || !strings.Contains(err.Error(), name) {
			t.Errorf("a module exporting %s: got %v, want it refused by name", name, err)
		}
	}
}

// Every module make plugins built must instrument, and the binpack guests
// of all three toolchains (with their globals, imports and custom sections)
// must compile instrumented; compiling all of them takes half a minute.
func TestInstrumentBuiltPlugins(t *testing.T) {
	files, _ := filepath.Glob("../../build/plugins/*.wasm")
	if len(files) == 0 {
		if os.Getenv("CALDERA_REQUIRE_PLUGINS") != "" {
			t.Fatal("no modules in build/plugins; run make plugins")
		}
		t.Skip("no modules in build/plugins; run make plugins")
	}
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	wasi_snapshot_preview1.MustInstantiate(ctx, rt)
	for _, f := range files {
		code, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Instrument(code)
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(f), err)
			continue
		}
		if m.Loops == 0 {
			t.Errorf("%s: no loop instrumented", filepath.Base(f))
		}
		if strings.HasSuffix(f, ".go.wasm") && m.Jumps == 0 {
			t.Errorf("%s: none of the Go toolchain's jumps threaded", filepath.Base(f))
		}
		if !strings.HasPrefix(filepath.Base(f), "binpack.") {
			continue
		}
		compiled, err := rt.CompileModule(ctx, m.Code)
		if err != nil {
			t.Errorf("%s: instrumented module does not compile: %v", filepath.Base(f), err)
			continue
		}
		_ = compiled.Close(ctx)
	}
}

// section returns the content of the first section with the given id.
func section(t *testing.T, code []byte, id byte) []byte {
	t.Helper()
	r := &reader{b: code, pos: 8}
	for !r.done() {
		got, err := r.byte()
		if err != nil {
			t.Fatal(err)
		}
		content, err := r.vec()
		if err != nil {
			t.Fatal(err)
		}
		if got == id {
			return content
		}
	}
	t.Fatalf("no section %d", id)
	return nil
}

// What wazero's own checks would not cover either is refused outright
// (ErrRefused), not left to them: code that sets a global the module does
// not have (after the rewrite, the countdown: the guest would never leave
// native code), a start function (it runs before a deadline can be set),
// a table larger than MaxTableEntries. A table without a maximum gets
// MaxTableEntries as its maximum, so that table.grow cannot allocate 2^32
// entries in the host.
func TestInstrumentRefusesWhatEscapesTheChecks(t *testing.T) {
	// loop: i32.const 0; global.set 1; br 0
	resetsCountdown := join(spinnerHead, spinnerExports, []byte{0x0a, 0x0d, 0x01, 0x0b, 0x00, 0x03, 0x40, 0x41, 0x00, 0x24, 0x01, 0x0c, 0x00, 0x0b, 0x0b})
	withStart := join(spinnerHead, spinnerExports, []byte{0x08, 0x01, 0x00}, spinnerCode)
	table := func(limits ...byte) []byte {
		content := append([]byte{0x01, 0x70}, limits...)
		return join(spinnerHead[:18], append([]byte{0x04, byte(len(content))}, content...), spinnerHead[18:], spinnerExports, spinnerCode)
	}
	for name, code := range map[string][]byte{
		"global.set of a global it lacks": resetsCountdown,
		"start function":                  withStart,
		"table of 2^21 entries":           table(0x00, 0x80, 0x80, 0x80, 0x01),
	} {
		if _, err := Instrument(code); !errors.Is(err, ErrRefused) {
			t.Errorf("%s: %v, want it refused", name, err)
		}
	}
	m, err := Instrument(table(0x00, 0x01)) // one entry, no maximum
	if err != nil {
		t.Fatal(err)
	}
	if got, want := section(t, m.Code, secTable), []byte{0x01, 0x70, 0x01, 0x01, 0x80, 0x80, 0x40}; !bytes.Equal(got, want) {
		t.Errorf("table section % x, want % x (maximum 2^20)", got, want)
	}
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	if _, err := rt.Instantiate(ctx, m.Code); err != nil {
		t.Errorf("the module with its table capped does not instantiate: %v", err)
	}
}

// recurser is a module whose "spin" makes a wide recursion with no loop:
// tree(60) calls tree(59) twice, and so on, 2^60 calls on a stack 60 deep.
var recurser = join(
	[]byte{0x00, 'a', 's', 'm', 0x01, 0x00, 0x00, 0x00},
	[]byte{0x01, 0x08, 0x02, 0x60, 0x00, 0x00, 0x60, 0x01, 0x7f, 0x00}, // types: () -> (), (i32) -> ()
	[]byte{0x03, 0x03, 0x02, 0x00, 0x01},                               // spin: type 0, tree: type 1
	[]byte{0x05, 0x03, 0x01, 0x00, 0x01},                               // memory
	spinnerExports,
	[]byte{0x0a, 0x1e, 0x02,
		0x06, 0x00, 0x41, 0x3c, 0x10, 0x01, 0x0b, // spin: tree(60)
		0x15, 0x00, 0x20, 0x00, 0x04, 0x40, // tree: if n
		0x20, 0x00, 0x41, 0x01, 0x6b, 0x10, 0x01, // tree(n-1)
		0x20, 0x00, 0x41, 0x01, 0x6b, 0x10, 0x01, // tree(n-1)
		0x0b, 0x0b},
)

// A wide recursion has no loop head to check, so the function on the call
// cycle gets the check at its entry: the collector can still stop the
// guest, and the interrupt traps it. The function off the cycle does not.
func TestInterruptStopsAWideRecursion(t *testing.T) {
	entries, _, err := callCycles(section(t, recurser, secCode), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || entries[0] || !entries[1] {
		t.Fatalf("entry checks %v, want tree's only", entries)
	}
	m, err := Instrument(recurser)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	mod, err := rt.Instantiate(ctx, m.Code)
	if err != nil {
		t.Fatalf("the instrumented module does not instantiate: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := mod.ExportedFunction("spin").Call(ctx)
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	awaitCollection(t)
	interruptAndAwaitTrap(t, mod, "spin", done)
}
