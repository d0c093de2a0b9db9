package interrupt

// The Go toolchain compiles each function into one loop that dispatches
// on a local, PC_B, to the function's basic blocks:
//
//	loop
//	  block block ... block          one per basic block
//	    local.get $PC_B  br_table    to the end of the basic block's block
//	  end  ;; basic block 0
//	  ...
//	end
//
// and every jump between basic blocks, forward ones included, as
//
//	i32.const K  local.set $PC_B  br $loop
//
// so each if and else in Go source goes back to the loop head, through the
// countdown check this package puts there, and leaves by an indirect jump.
// A forward jump's target block encloses the jump, so the threader
// rewrites the br to go to that block directly, leaving the local.set in
// place (Go reads PC_B only in the dispatch). The threader matches the
// shape, not a toolchain: any function built this way gets the same. Backward jumps, which make the
// loops, keep going through the head and its check: only they can repeat
// (docs/performance.md, "Where a Go-toolchain port's time goes").

// frame is an open block, loop or if.
type frame struct {
	id int
	// dispatch is set on a loop that opens with blocks and a br_table on
	// a local: the blocks the table names, by frame id, the default last.
	dispatch *dispatch
}

type dispatch struct {
	local uint32
	// targets are the blocks the table names, the default last: their
	// frame ids and their places on the stack, so that a jump finds its
	// block without a search (a hostile module could make that quadratic).
	targets []target
}

type target struct{ id, index int }

// threader follows a function body's control structure, one instruction
// at a time, and finds the jumps it can thread.
type threader struct {
	stack  []frame
	nextID int
	n      int // instructions seen
	// head is the stack index of a loop whose opening has been only empty
	// blocks so far, -1 when none; headLocal is the local read after
	// them, when headRead.
	head      int
	headLocal uint32
	headRead  bool
	// The last i32.const and local.set, by instruction number.
	constK   int32
	constAt  int
	setLocal uint32
	setAt    int
}

func newThreader() *threader { return &threader{head: -1, constAt: -1, setAt: -1} }

// step takes one instruction and its immediates. For a br that can go
// straight to its block it returns the new label depth.
func (t *threader) step(op byte, imm []byte) (depth uint32, threaded bool) {
	t.n++
	inHead := false
	switch op {
	case 0x02, 0x03, 0x04: // block, loop, if
		t.stack = append(t.stack, frame{id: t.nextID})
		t.nextID++
		empty := len(imm) == 1 && imm[0] == blockEmpty
		switch {
		case op == opLoop && empty:
			t.head, t.headRead, inHead = len(t.stack)-1, false, true
		case op == 0x02 && empty && t.head >= 0 && !t.headRead:
			inHead = true
		}
	case opEnd:
		if len(t.stack) > 0 {
			t.stack = t.stack[:len(t.stack)-1]
		}
	case 0x20: // local.get
		if t.head >= 0 && !t.headRead {
			if v, err := (&reader{b: imm}).u32(); err == nil {
				t.headLocal, t.headRead, inHead = v, true, true
			}
		}
	case 0x0e: // br_table
		if t.head >= 0 && t.headRead {
			t.stack[t.head].dispatch = t.table(imm)
		}
	case opI32Const:
		if v, err := (&reader{b: imm}).s32(); err == nil {
			t.constK, t.constAt = v, t.n
		}
	case 0x21: // local.set
		if v, err := (&reader{b: imm}).u32(); err == nil {
			t.setLocal, t.setAt = v, t.n
		}
	case 0x0c: // br
		if t.constAt == t.n-2 && t.setAt == t.n-1 {
			if d, err := (&reader{b: imm}).u32(); err == nil {
				depth, threaded = t.thread(d)
			}
		}
	}
	if !inHead {
		t.head = -1
	}
	return depth, threaded
}

// table reads a br_table's labels as frame ids, or returns nil when one
// leaves the function.
func (t *threader) table(imm []byte) *dispatch {
	r := &reader{b: imm}
	n, err := r.u32()
	if err != nil {
		return nil
	}
	d := &dispatch{local: t.headLocal}
	for i := uint32(0); i <= n; i++ {
		l, err := r.u32()
		if err != nil || l >= uint32(len(t.stack)) {
			return nil
		}
		index := len(t.stack) - 1 - int(l)
		d.targets = append(d.targets, target{t.stack[index].id, index})
	}
	return d
}

// thread returns the depth of the block a br to label d reaches through
// its loop's dispatch, when d is such a loop, the local just set is its
// PC_B, and the block is still open (the jump is forward).
func (t *threader) thread(d uint32) (uint32, bool) {
	if d >= uint32(len(t.stack)) {
		return 0, false
	}
	loop := len(t.stack) - 1 - int(d)
	disp := t.stack[loop].dispatch
	if disp == nil || disp.local != t.setLocal {
		return 0, false
	}
	to := disp.targets[len(disp.targets)-1]
	if t.constK >= 0 && int64(t.constK) < int64(len(disp.targets)-1) {
		to = disp.targets[t.constK]
	}
	// Still open, so the jump is forward: the frame at its place is it.
	if to.index > loop && to.index < len(t.stack) && t.stack[to.index].id == to.id {
		return uint32(len(t.stack) - 1 - to.index), true
	}
	return 0, false
}
