package interrupt

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// recursions is a module of three recursive exports:
//
//	spin()              calls itself forever
//	count(n) -> i32     n, from n nested calls, leaving the deepest by return
//	pair(n) -> i32 i32  (n, 7), the same with two results
var recursions = join(
	[]byte{0x00, 'a', 's', 'm', 0x01, 0x00, 0x00, 0x00},
	// types: () -> (), (i32) -> (i32), (i32) -> (i32 i32)
	[]byte{0x01, 0x0f, 0x03, 0x60, 0x00, 0x00, 0x60, 0x01, 0x7f, 0x01, 0x7f, 0x60, 0x01, 0x7f, 0x02, 0x7f, 0x7f},
	[]byte{0x03, 0x04, 0x03, 0x00, 0x01, 0x02}, // functions of types 0, 1, 2
	[]byte{0x05, 0x03, 0x01, 0x00, 0x01},       // memory
	[]byte{0x07, 0x17, 0x03,
		0x04, 's', 'p', 'i', 'n', 0x00, 0x00,
		0x05, 'c', 'o', 'u', 'n', 't', 0x00, 0x01,
		0x04, 'p', 'a', 'i', 'r', 0x00, 0x02},
	[]byte{0x0a, 0x3a, 0x03,
		0x04, 0x00, 0x10, 0x00, 0x0b, // spin: call spin
		0x15, 0x00, // count:
		0x20, 0x00, 0x45, 0x04, 0x40, 0x41, 0x00, 0x0f, 0x0b, // if n == 0: return 0
		0x20, 0x00, 0x41, 0x01, 0x6b, 0x10, 0x01, 0x41, 0x01, 0x6a, // count(n-1) + 1
		0x0b,
		0x1d, 0x01, 0x01, 0x7f, // pair, one i32 local:
		0x20, 0x00, 0x45, 0x04, 0x40, 0x41, 0x00, 0x41, 0x07, 0x0f, 0x0b, // if n == 0: return 0, 7
		0x20, 0x00, 0x41, 0x01, 0x6b, 0x10, 0x02, 0x21, 0x01, 0x41, 0x01, 0x6a, 0x20, 0x01, // a, b = pair(n-1); a+1, b
		0x0b},
)

func instantiateRecursions(t *testing.T, code []byte) (api.Module, func()) {
	t.Helper()
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	mod, err := rt.Instantiate(ctx, code)
	if err != nil {
		t.Fatalf("instantiating: %v", err)
	}
	return mod, func() { _ = rt.Close(ctx) }
}

// An endless recursion traps when its frames have used the budget, long
// before wazero's own 50 MB limit, and with a few MB of host memory where
// the uninstrumented module took 161 MB.
func TestStackBudgetBoundsTheHostStack(t *testing.T) {
	m, err := Instrument(recursions)
	if err != nil {
		t.Fatal(err)
	}
	mod, closeRT := instantiateRecursions(t, m.Code)
	defer closeRT()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err = mod.ExportedFunction("spin").Call(context.Background())
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "unreachable") {
		t.Fatalf("spin ended with %v, want the budget's unreachable trap", err)
	}
	if left := mod.ExportedGlobal(StackExport).Get(); left >= StackBudget/2 {
		t.Errorf("budget left after the trap %d of %d: the trap was not the budget's", left, StackBudget)
	}
	const bound = 40 << 20
	t.Logf("the failing call allocated %d KB", (after.TotalAlloc-before.TotalAlloc)>>10)
	if got := after.TotalAlloc - before.TotalAlloc; got > bound {
		t.Errorf("the failing call allocated %d MB of host memory, want under %d", got>>20, bound>>20)
	}
}

// Every way out of a charged function gives its charge back: a deep but
// finite recursion, with one or two results, leaving the deepest call by
// return and the others by their end, returns the right values and leaves
// the whole budget.
func TestStackBudgetIsGivenBack(t *testing.T) {
	m, err := Instrument(recursions)
	if err != nil {
		t.Fatal(err)
	}
	mod, closeRT := instantiateRecursions(t, m.Code)
	defer closeRT()
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		res, err := mod.ExportedFunction("count").Call(ctx, 5000)
		if err != nil || res[0] != 5000 {
			t.Fatalf("count(5000) = %v, %v", res, err)
		}
		res, err = mod.ExportedFunction("pair").Call(ctx, 5000)
		if err != nil || res[0] != 5000 || res[1] != 7 {
			t.Fatalf("pair(5000) = %v, %v", res, err)
		}
		if left := mod.ExportedGlobal(StackExport).Get(); left != StackBudget {
			t.Fatalf("budget after call %d: %d, want all %d back", i, left, StackBudget)
		}
	}
	// Deeper than the budget allows: a trap, not wazero's stack overflow.
	if _, err := mod.ExportedFunction("count").Call(ctx, StackBudget); err == nil || !strings.Contains(err.Error(), "unreachable") {
		t.Fatalf("count(%d) ended with %v, want the budget's trap", StackBudget, err)
	}
}

// A module whose one frame, or chain of calls that cannot recurse,
// outweighs the budget is refused at load.
func TestStackBudgetRefusesHeavyFrames(t *testing.T) {
	// spin with 2^21 i64 locals: (func (local 2097152 i64) call 0)
	heavy := join(spinnerHead, spinnerExports, []byte{0x0a, 0x0b, 0x01, 0x09, 0x01, 0x80, 0x80, 0x80, 0x01, 0x7e, 0x10, 0x00, 0x0b})
	if _, err := Instrument(heavy); err == nil || !strings.Contains(err.Error(), "slots of stack") {
		t.Errorf("a frame of 2^21 locals: %v, want it refused", err)
	}
	// The same frame, not recursive: the chain the host calls first.
	flat := join(spinnerHead, spinnerExports, []byte{0x0a, 0x09, 0x01, 0x07, 0x01, 0x80, 0x80, 0x80, 0x01, 0x7e, 0x0b})
	if _, err := Instrument(flat); err == nil || !strings.Contains(err.Error(), "chain of calls") {
		t.Errorf("a chain of 2^21 locals: %v, want it refused", err)
	}
}
