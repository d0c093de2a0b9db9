package interrupt

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// goShaped is a function in the shape the Go toolchain gives every
// function: one loop dispatching on its first parameter (PC_B) to basic
// blocks, and jumps as i32.const K, local.set 0, br to the loop.
//
//	(func (export "f") (param $pcb i32) (param $x i32) (result i32)
//	  loop
//	    block                              ;; BB1 starts at its end
//	      block                            ;; BB0 starts at its end
//	        local.get 0  br_table 0 1 0
//	      end
//	      ;; BB0: x == 0 returns 7; otherwise forward to BB1
//	      local.get 1
//	      if  i32.const 1  local.set 0  br 2  end
//	      i32.const 7  return
//	    end
//	    ;; BB1: x > 100 returns x; otherwise x += 50, back to BB0
//	    local.get 1  i32.const 100  i32.gt_s
//	    if  local.get 1  return  end
//	    local.get 1  i32.const 50  i32.add  local.set 1
//	    i32.const 0  local.set 0  br 0
//	  end
//	  unreachable)
var goShapedBody = []byte{
	0x00,       // no locals beyond the parameters
	0x03, 0x40, // loop
	0x02, 0x40, // block (BB1)
	0x02, 0x40, // block (BB0)
	0x20, 0x00, 0x0e, 0x02, 0x00, 0x01, 0x00, // local.get 0, br_table 0 1 0
	0x0b,       // end: BB0
	0x20, 0x01, // local.get 1
	0x04, 0x40, 0x41, 0x01, 0x21, 0x00, 0x0c, 0x02, 0x0b, // if, jump to BB1, end
	0x41, 0x07, 0x0f, // i32.const 7, return
	0x0b,                               // end: BB1
	0x20, 0x01, 0x41, 0xe4, 0x00, 0x4a, // x > 100
	0x04, 0x40, 0x20, 0x01, 0x0f, 0x0b, // if return x end
	0x20, 0x01, 0x41, 0x32, 0x6a, 0x21, 0x01, // x += 50
	0x41, 0x00, 0x21, 0x00, 0x0c, 0x00, // jump back to BB0
	0x0b, // end loop
	0x00, // unreachable
	0x0b, // end function
}

// goShapedModule is a module exporting body as "f"; changes, byte index to
// new value, apply to a copy of it.
func goShapedModule(body []byte, changes map[int]byte) []byte {
	body = append([]byte(nil), body...)
	for at, v := range changes {
		body[at] = v
	}
	code := append([]byte{0x01, byte(len(body))}, body...)
	return join(
		[]byte{0x00, 'a', 's', 'm', 0x01, 0x00, 0x00, 0x00},
		[]byte{0x01, 0x07, 0x01, 0x60, 0x02, 0x7f, 0x7f, 0x01, 0x7f}, // (i32, i32) -> i32
		[]byte{0x03, 0x02, 0x01, 0x00},
		[]byte{0x05, 0x03, 0x01, 0x00, 0x01},
		[]byte{0x07, 0x05, 0x01, 0x01, 'f', 0x00, 0x00},
		append([]byte{0x0a, byte(len(code))}, code...),
	)
}

// instrumentGoShaped instruments the Go-shaped module with changes,
// checks how many jumps were threaded, and instantiates it for the test.
func instrumentGoShaped(t *testing.T, changes map[int]byte, jumps int) (Module, api.Module) {
	t.Helper()
	m, err := Instrument(goShapedModule(goShapedBody, changes))
	if err != nil {
		t.Fatal(err)
	}
	if m.Jumps != jumps {
		t.Fatalf("threaded %d jumps, want %d", m.Jumps, jumps)
	}
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	t.Cleanup(func() { rt.Close(ctx) })
	mod, err := rt.Instantiate(ctx, m.Code)
	if err != nil {
		t.Fatalf("the rewritten module does not instantiate: %v", err)
	}
	return m, mod
}

// wantF checks f(x) of a Go-shaped module.
func wantF(t *testing.T, mod api.Module, x, want uint64) {
	t.Helper()
	got, err := mod.ExportedFunction("f").Call(context.Background(), 0, x)
	if err != nil || got[0] != want {
		t.Errorf("f(%d) = %v, %v; want %d", x, got, err, want)
	}
}

// The forward jump goes straight to BB1, the backward one still through
// the loop and its check, and the function computes what it did.
func TestGoForwardJumpsSkipTheLoopHead(t *testing.T) {
	m, mod := instrumentGoShaped(t, nil, 1)
	if m.Loops != 1 {
		t.Fatalf("instrumented %d loops, want 1", m.Loops)
	}
	// BB1's block is the second label out from inside the if.
	jump := []byte{0x41, 0x01, 0x21, 0x00, 0x0c}
	at := bytes.Index(m.Code, jump)
	if at < 0 || m.Code[at+len(jump)] != 0x01 {
		t.Fatalf("the forward jump is not br 1 in %x", m.Code)
	}
	for x, want := range map[uint64]uint64{0: 7, 1: 101, 99: 149, 101: 101, 200: 200} {
		wantF(t, mod, x, want)
	}
}

// A jump whose local is not the one the loop dispatches on, or to a block
// already closed, is left alone.
func TestOtherJumpsStayAsTheyAre(t *testing.T) {
	_, mod := instrumentGoShaped(t, map[int]byte{
		22: 0x01, // the forward jump sets local 1, not PC_B
	}, 0)
	wantF(t, mod, 0, 7)
}

// A K past the table's end takes its default, as br_table would.
func TestJumpPastTheTableTakesItsDefault(t *testing.T) {
	_, mod := instrumentGoShaped(t, map[int]byte{
		13: 0x01, // br_table 0 1 1: the default is BB1
		20: 0x05, // the forward jump sets PC_B to 5
	}, 1)
	wantF(t, mod, 99, 149)
}

func TestSignedLEB(t *testing.T) {
	for _, v := range []int32{0, 1, -1, 63, 64, -64, -65, 127, -129, 70000, -70000, 1<<31 - 1, -1 << 31} {
		got, err := (&reader{b: appendS32(nil, v)}).s32()
		if err != nil || got != v {
			t.Errorf("s32 of %d read %d, %v", v, got, err)
		}
	}
}

// A loop made of a threaded forward jump and a backward one still passes
// the countdown, so the interrupt stops it.
func TestThreadedLoopIsStillInterrupted(t *testing.T) {
	_, mod := instrumentGoShaped(t, map[int]byte{
		45: 0x00, // x += 0: f(1) jumps between BB0 and BB1 forever
	}, 1)
	done := make(chan error, 1)
	go func() {
		_, err := mod.ExportedFunction("f").Call(context.Background(), 0, 1)
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	interruptAndAwaitTrap(t, mod, "f", done)
}
