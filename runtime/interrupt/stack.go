package interrupt

import (
	"fmt"
)

// The stack budget. wazero runs a call on a stack of its own, in the
// host's memory, which it doubles whenever a frame does not fit, up to
// 50 MB: a guest recursing without end made the host allocate 142-161 MB
// per failing call (the endless recursions of this package's and the
// runtime's tests, uninstrumented), none of it counted against the
// module's memory limit; with the budget, 11-20 MB.
// Instrument gives the module a third global, a budget of StackBudget
// slots, exported as StackExport. Every function that can recurse (the
// ones the entry check goes to, calls.go) takes its charge from the
// budget when it is entered, trapping if the budget is short, and gives
// it back on the way out:
//
//	global.get $stack  i32.const charge  i32.lt_u
//	if  unreachable  end
//	global.get $stack  i32.const charge  i32.sub  global.set $stack
//	block (result ...)        ;; the body, its returns now br to this block
//	  ...
//	end
//	global.get $stack  i32.const charge  i32.add  global.set $stack
//
// A function's weight bounds its frame in slots: each local and parameter,
// each value an instruction can leave on the operand stack (at most one
// per instruction), and a frame's fixed part. Functions that cannot
// recurse are not charged on their own: a chain of them is finite, and its
// weight (its reach) is charged to the recursive function that calls into
// it, or bounded at load for the chain the host calls first. A trap leaves
// the budget spent, but the host discards an instance after any failed
// call. Tail calls and exceptions, which would leave a frame without
// giving its charge back, are instructions the walker refuses.

// StackExport is the name under which an instrumented module exports its
// stack budget (an i32: the slots left).
const StackExport = "caldera_stack"

// StackBudget is how many slots of weight a call's frames may hold at
// once. A slot is meant to stand for one value of wazero's stack: an
// endless recursion of 6-slot frames stops with 20 MB allocated for its
// stack (TestStackBudgetBoundsTheHostStack). The largest charge among the
// 30 example modules is 63,953 slots (6.1 %), a Go-toolchain function that
// calls through a table.
const StackBudget = 1 << 20

// frameSlots is the fixed part of a frame's weight: return address, frame
// pointer and saved registers.
const frameSlots = 4

// bodyCost is what a function body costs the stack, from one walk.
type bodyCost struct {
	calls    []uint32 // defined functions called directly
	indirect bool     // calls through a table
	weight   uint64   // locals and instructions, without parameters
}

// signature is a function type: its parameter count and result types.
type signature struct {
	params  uint32
	results []byte
}

// stackPlan is what the code section needs to be charged: each defined
// function's charge (0: not charged) and the block type its body is
// wrapped in.
type stackPlan struct {
	charge     []uint32
	blockTypes [][]byte
}

// planStack computes each recursive function's charge from the bodies'
// costs and the functions' signatures, and refuses a module whose chain of
// non-recursive calls, or one frame, outweighs the whole budget.
// extraTypes maps a multi-value result list to the index of the type
// [] -> results appended to the type section for its blocks.
func planStack(costs []bodyCost, checked []bool, funcTypes []uint32, types []signature, extraTypes map[string]uint32) (stackPlan, error) {
	n := len(costs)
	weight := make([]uint64, n)
	for i, c := range costs {
		weight[i] = c.weight + frameSlots
		if t := funcTypes[i]; int(t) < len(types) {
			weight[i] += uint64(types[t].params)
		}
	}
	reach := reaches(costs, checked, weight)
	var widest uint64 // the largest reach of any function not charged
	for i := range reach {
		if !checked[i] {
			widest = max(widest, reach[i])
		}
	}
	if widest > StackBudget {
		return stackPlan{}, refused("a chain of calls without recursion needs %d slots of stack; the host allows %d", widest, StackBudget)
	}
	plan := stackPlan{charge: make([]uint32, n), blockTypes: make([][]byte, n)}
	for i, c := range costs {
		if !checked[i] {
			continue
		}
		var below uint64
		for _, g := range c.calls {
			if !checked[g] {
				below = max(below, reach[g])
			}
		}
		if c.indirect {
			below = widest
		}
		charge := weight[i] + below
		if charge > StackBudget {
			return stackPlan{}, refused("function %d needs %d slots of stack for one call; the host allows %d", i, charge, StackBudget)
		}
		plan.charge[i] = uint32(charge)
		results := types[funcTypes[i]].results
		switch len(results) {
		case 0:
			plan.blockTypes[i] = []byte{blockEmpty}
		case 1:
			plan.blockTypes[i] = results
		default:
			plan.blockTypes[i] = appendS32(nil, int32(extraTypes[string(results)]))
		}
	}
	return plan, nil
}

// reaches returns, for each function not charged, the largest weight a
// chain of calls starting at it can hold before it reaches a charged one:
// its own weight and its heaviest callee's reach. Those functions call no
// table and lie on no cycle, so the chains end; the walk is iterative, as
// a chain can be as long as the module has functions.
func reaches(costs []bodyCost, checked []bool, weight []uint64) []uint64 {
	reach := make([]uint64, len(costs))
	done := make([]bool, len(costs))
	type frame struct {
		f    uint32
		next int
	}
	for root := range costs {
		if checked[root] || done[root] {
			continue
		}
		work := []frame{{f: uint32(root)}}
		for len(work) > 0 {
			top := &work[len(work)-1]
			calls := costs[top.f].calls
			if top.next < len(calls) {
				g := calls[top.next]
				top.next++
				if !checked[g] && !done[g] {
					work = append(work, frame{f: g})
				}
				continue
			}
			var below uint64
			for _, g := range calls {
				if !checked[g] {
					below = max(below, reach[g])
				}
			}
			reach[top.f] = min(weight[top.f]+below, StackBudget+1) // no overflow
			done[top.f] = true
			work = work[:len(work)-1]
		}
	}
	return reach
}

// charging returns the entry and exit code of a charged function.
func charging(stack, charge uint32) (take, giveBack []byte) {
	get := appendU32([]byte{opGlobalGet}, stack)
	set := appendU32([]byte{opGlobalSet}, stack)
	k := appendS32([]byte{opI32Const}, int32(charge))
	take = append(append(append([]byte{}, get...), k...), opI32LtU, opIf, blockEmpty, opUnreachable, opEnd)
	take = append(append(append(append(take, get...), k...), opI32Sub), set...)
	giveBack = append(append(append(append([]byte{}, get...), k...), opI32Add), set...)
	return take, giveBack
}

// readSignatures reads the type section's function types and the function
// section's type of each defined function, before the sections are
// rewritten: a charged body is wrapped in a block of its results' type.
func readSignatures(code []byte) ([]signature, []uint32, error) {
	r := &reader{b: code, pos: 8}
	var types []signature
	var funcTypes []uint32
	for !r.done() {
		id, err := r.byte()
		if err != nil {
			return nil, nil, err
		}
		content, err := r.vec()
		if err != nil {
			return nil, nil, fmt.Errorf("section %d: %w", id, err)
		}
		switch id {
		case 1:
			if types, err = readTypes(content); err != nil {
				return nil, nil, fmt.Errorf("type section: %w", err)
			}
		case 3:
			cr := &reader{b: content}
			n, err := cr.u32()
			if err != nil {
				return nil, nil, fmt.Errorf("function section: %w", err)
			}
			for i := uint32(0); i < n; i++ {
				t, err := cr.u32()
				if err != nil {
					return nil, nil, fmt.Errorf("function section: %w", err)
				}
				if int(t) >= len(types) {
					return nil, nil, fmt.Errorf("function section: function %d has type %d; the module has %d", i, t, len(types))
				}
				funcTypes = append(funcTypes, t)
			}
		}
	}
	return types, funcTypes, nil
}

func readTypes(content []byte) ([]signature, error) {
	r := &reader{b: content}
	n, err := r.u32()
	if err != nil {
		return nil, err
	}
	types := make([]signature, 0, min(n, 1<<16))
	for i := uint32(0); i < n; i++ {
		if form, err := r.byte(); err != nil || form != 0x60 {
			return nil, fmt.Errorf("type %d is not a function type", i)
		}
		params, err := r.vec()
		if err != nil {
			return nil, err
		}
		results, err := r.vec()
		if err != nil {
			return nil, err
		}
		for _, v := range append(params[:len(params):len(params)], results...) {
			if !(v >= 0x7b && v <= 0x7f) && v != 0x70 && v != 0x6f {
				return nil, fmt.Errorf("type %d: unknown value type 0x%02x", i, v)
			}
		}
		types = append(types, signature{params: uint32(len(params)), results: results})
	}
	return types, nil
}

// appendBlockTypes adds to the type section a type [] -> results for each
// multi-value result list a charged body's block needs, and returns the
// section and the new types' indices.
func appendBlockTypes(content []byte, types []signature) ([]byte, map[string]uint32, error) {
	extra := map[string]uint32{}
	var added []byte
	next := uint32(len(types))
	for _, t := range types {
		if len(t.results) < 2 {
			continue
		}
		if _, ok := extra[string(t.results)]; ok {
			continue
		}
		extra[string(t.results)] = next
		next++
		added = append(added, 0x60, 0x00)
		added = appendU32(added, uint32(len(t.results)))
		added = append(added, t.results...)
	}
	if len(extra) == 0 {
		return content, extra, nil
	}
	r := &reader{b: content}
	if _, err := r.u32(); err != nil {
		return nil, nil, err
	}
	out := appendU32(nil, next)
	out = append(out, content[r.pos:]...)
	return append(out, added...), extra, nil
}
