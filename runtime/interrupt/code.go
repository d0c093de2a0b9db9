package interrupt

import "fmt"

// check is what goes at the head of every loop. Every checkEvery
// iterations (over all loops of the instance) it traps if the interrupt
// global is set, and calls memory.grow(0), which in wazero's compiled code
// leaves native code for Go and back: native code cannot be preempted, so
// without such an exit a long call would hold up every stop-the-world of
// Go's garbage collector, and with it the whole process (the goroutine
// that sets the interrupt included).
//
//	global.get $countdown  i32.const 1  i32.sub  global.set $countdown
//	global.get $countdown  i32.eqz
//	if
//	  i32.const checkEvery  global.set $countdown
//	  global.get $interrupt
//	  if  unreachable  end
//	  i32.const 0  memory.grow  drop
//	end
func check(interrupt, countdown uint32) []byte {
	b := appendU32([]byte{opGlobalGet}, countdown)
	b = append(b, opI32Const, 1, opI32Sub, opGlobalSet)
	b = appendU32(b, countdown)
	b = append(b, opGlobalGet)
	b = appendU32(b, countdown)
	b = append(b, opI32Eqz, opIf, blockEmpty, opI32Const)
	b = appendS32(b, checkEvery)
	b = append(b, opGlobalSet)
	b = appendU32(b, countdown)
	b = append(b, opGlobalGet)
	b = appendU32(b, interrupt)
	b = append(b, opIf, blockEmpty, opUnreachable, opEnd)
	return append(b, opI32Const, 0, opMemoryGrow, 0, opDrop, opEnd)
}

// checkEvery is how many loop iterations pass between two checks: at a few
// nanoseconds an iteration, a few microseconds, against some 100 ns for the
// exit to Go.
const checkEvery = 1024

const (
	opUnreachable  = 0x00
	opLoop         = 0x03
	opIf           = 0x04
	opEnd          = 0x0b
	opDrop         = 0x1a
	opBr           = 0x0c
	opReturn       = 0x0f
	opCall         = 0x10
	opCallIndirect = 0x11
	opGlobalGet    = 0x23
	opGlobalSet    = 0x24
	opMemoryGrow   = 0x40
	opI32Const     = 0x41
	opI32Eqz       = 0x45
	opI32LtU       = 0x49
	opI32Add       = 0x6a
	opI32Sub       = 0x6b
	blockEmpty     = 0x40
)

// instrumentBody copies one function body (locals and code) with the check
// after every loop instruction and Go's forward jumps threaded (thread.go),
// and counts the loops. A global.get or global.set of an index past the
// module's own globals is refused: in the rewritten module it would be the
// interrupt or the countdown, and an invalid module made valid by the
// rewrite could reset the countdown and never leave native code. A body
// with a charge gets the check at its entry and is charged to the stack
// budget (stack.go).
func instrumentBody(body []byte, chk []byte, globals uint32, charge *charged) ([]byte, int, int, error) {
	r := &reader{b: body}
	if err := skipLocals(r); err != nil {
		return nil, 0, 0, err
	}
	out := make([]byte, 0, len(body)+16)
	copied := 0
	var giveBack []byte
	if charge != nil {
		var take []byte
		take, giveBack = charging(charge.stack, charge.slots)
		out = append(append(append(out, body[:r.pos]...), chk...), take...)
		out = append(append(out, 0x02), charge.blockType...)
		copied = r.pos
	}
	loops, nesting := 0, 0 // nesting: blocks open in the body
	jumps, threaded := newThreader(), 0
	for !r.done() {
		op, err := r.byte()
		if err != nil {
			return nil, 0, 0, err
		}
		start := r.pos
		if err := skipImmediates(r, op); err != nil {
			return nil, 0, 0, fmt.Errorf("instruction 0x%02x at offset %d: %w", op, r.pos, err)
		}
		if op == opGlobalGet || op == opGlobalSet {
			if index, _ := (&reader{b: body[start:r.pos]}).u32(); index >= globals {
				return nil, 0, 0, refused("instruction 0x%02x at offset %d uses global %d; the module has %d", op, start-1, index, globals)
			}
		}
		if depth, ok := jumps.step(op, body[start:r.pos]); ok {
			out = append(out, body[copied:start]...)
			out = appendU32(out, depth)
			copied = r.pos
			threaded++
		}
		switch op {
		case opLoop:
			out = append(out, body[copied:r.pos]...)
			out = append(out, chk...)
			copied = r.pos
			loops++
		case opReturn:
			if charge != nil { // leave through the block, which gives the charge back
				out = append(out, body[copied:start-1]...)
				out = appendU32(append(out, opBr), uint32(nesting))
				copied = r.pos
			}
		case opEnd:
			if nesting == 0 && charge != nil { // the body's end: the block's first
				out = append(append(out, body[copied:r.pos]...), giveBack...)
				copied = r.pos - 1
			}
		}
		switch op {
		case 0x02, opLoop, opIf:
			nesting++
		case opEnd:
			nesting--
		}
	}
	return append(out, body[copied:]...), loops, threaded, nil
}

// charged is what a charged body needs: the budget global, the charge and
// the type of the block its body is wrapped in.
type charged struct {
	stack, slots uint32
	blockType    []byte
}

// skipLocals moves past a function body's local declarations, to its
// first instruction.
func skipLocals(r *reader) error {
	_, err := countLocals(r)
	return err
}

// countLocals moves past a function body's local declarations and returns
// how many slots they take (a v128 two).
func countLocals(r *reader) (uint64, error) {
	groups, err := r.u32()
	if err != nil {
		return 0, err
	}
	var slots uint64
	for i := uint32(0); i < groups; i++ {
		n, err := r.u32()
		if err != nil {
			return 0, err
		}
		t, err := r.byte()
		if err != nil {
			return 0, err
		}
		if t == 0x7b {
			slots += uint64(n)
		}
		slots += uint64(n)
	}
	return slots, nil
}

// skipImmediates moves past an instruction's immediates. It knows the
// instructions of Wasm 2.0 (which wazero runs) and the threads proposal;
// anything else is an error, and the caller then leaves the module to
// wazero's own termination checks.
func skipImmediates(r *reader, op byte) error {
	switch {
	case op == 0x00 || op == 0x01 || op == 0x05 || op == 0x0b || op == 0x0f ||
		op == 0x1a || op == 0x1b || op == 0xd1 || (op >= 0x45 && op <= 0xc4):
		return nil
	case op == 0x02 || op == 0x03 || op == 0x04: // block, loop, if
		return skipBlockType(r)
	case op == 0x0c || op == 0x0d || op == 0x10 || op == 0xd2 || (op >= 0x20 && op <= 0x26):
		// br, br_if, call, ref.func, local.*, global.*, table.get/set
		return r.skipLEB()
	case op == 0x0e: // br_table: labels and a default
		n, err := r.u32()
		if err != nil {
			return err
		}
		return skipLEBs(r, int(n)+1)
	case op == 0x11: // call_indirect: type, table
		return skipLEBs(r, 2)
	case op == 0x1c: // select with types
		n, err := r.u32()
		if err != nil {
			return err
		}
		_, err = r.bytes(int(n))
		return err
	case op >= 0x28 && op <= 0x3e: // loads and stores
		return skipMemArg(r)
	case op == 0x3f || op == 0x40: // memory.size, memory.grow: memory index
		return r.skipLEB()
	case op == 0x41 || op == 0x42: // i32.const, i64.const
		return r.skipLEB()
	case op == 0x43:
		_, err := r.bytes(4)
		return err
	case op == 0x44:
		_, err := r.bytes(8)
		return err
	case op == 0xd0: // ref.null: heap type
		_, err := r.byte()
		return err
	case op == 0xfc:
		return skipMisc(r)
	case op == 0xfd:
		return skipSIMD(r)
	case op == 0xfe:
		return skipAtomic(r)
	}
	return fmt.Errorf("unknown opcode")
}

func skipLEBs(r *reader, n int) error {
	for i := 0; i < n; i++ {
		if err := r.skipLEB(); err != nil {
			return err
		}
	}
	return nil
}

// skipBlockType: empty (0x40), one value type (one byte), or a type index
// (a positive signed LEB128, whose first byte is below 0x40 or continues).
func skipBlockType(r *reader) error {
	c, err := r.byte()
	if err != nil {
		return err
	}
	if c == blockEmpty || (c >= 0x6f && c <= 0x7f) {
		return nil
	}
	r.pos--
	return r.skipLEB()
}

// skipMemArg: alignment, then offset; alignment bit 6 announces a memory
// index (multi-memory) between them.
func skipMemArg(r *reader) error {
	align, err := r.u32()
	if err != nil {
		return err
	}
	if align&0x40 != 0 {
		if err := r.skipLEB(); err != nil {
			return err
		}
	}
	return r.skipLEB()
}

// skipMisc: the 0xfc prefix (saturating truncation, bulk memory, tables).
func skipMisc(r *reader) error {
	sub, err := r.u32()
	if err != nil {
		return err
	}
	switch {
	case sub <= 7:
		return nil
	case sub == 8 || sub == 10 || sub == 12 || sub == 14: // memory.init, memory.copy, table.init, table.copy
		return skipLEBs(r, 2)
	case sub == 9 || sub == 11 || sub == 13 || (sub >= 15 && sub <= 17):
		return r.skipLEB()
	}
	return fmt.Errorf("unknown 0xfc instruction %d", sub)
}

// skipSIMD: the 0xfd prefix (fixed-width SIMD and relaxed SIMD).
func skipSIMD(r *reader) error {
	sub, err := r.u32()
	if err != nil {
		return err
	}
	switch {
	case sub <= 11 || sub == 92 || sub == 93: // loads and stores
		return skipMemArg(r)
	case sub == 12 || sub == 13: // v128.const, i8x16.shuffle
		_, err := r.bytes(16)
		return err
	case sub >= 21 && sub <= 34: // extract and replace lane
		_, err := r.byte()
		return err
	case sub >= 84 && sub <= 91: // load and store lane
		if err := skipMemArg(r); err != nil {
			return err
		}
		_, err := r.byte()
		return err
	case sub > 0x113: // past relaxed SIMD
		return fmt.Errorf("unknown 0xfd instruction %d", sub)
	}
	return nil // every other SIMD instruction has no immediate
}

// skipAtomic: the 0xfe prefix (threads).
func skipAtomic(r *reader) error {
	sub, err := r.u32()
	if err != nil {
		return err
	}
	if sub == 3 { // atomic.fence
		_, err := r.byte()
		return err
	}
	if sub > 0x4e {
		return fmt.Errorf("unknown 0xfe instruction %d", sub)
	}
	return skipMemArg(r)
}
