// Package interrupt makes a Wasm module stoppable without wazero's
// termination checks.
//
// wazero stops a call whose context is done by compiling, at the head of
// every loop, an exit from the guest's native code into Go and back
// (docs/performance.md, "wazero's termination checks and the loop checks
// added at load"): guests run about 3x slower. Instrument instead gives the
// module mutable globals: an interrupt flag, exported as Export, and a
// countdown of loop iterations (and a stack budget, below).
// At every loop head the countdown goes down; when it reaches zero (every
// checkEvery iterations) the guest traps if the flag is set and otherwise
// leaves native code for Go once, so that Go's scheduler and garbage
// collector can stop it. The host sets the flag from another goroutine when
// a call's deadline passes. Like wazero's checks, these are at loop heads;
// unlike them, they are also at the entry of every function on a cycle of
// calls (calls.go): a deep recursion ends in a stack overflow, but a wide
// one (each call making two, sixty levels deep) runs for years without a
// loop head. The same walk sends the Go toolchain's forward jumps
// straight to their blocks rather than through their function's dispatch
// loop and its check (thread.go), and charges the functions on a cycle to a
// third global, a stack budget (stack.go).
package interrupt

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
)

// Export is the name under which an instrumented module exports its
// interrupt global (an i32, 0 until the host stops the call).
const Export = "caldera_interrupt"

// ErrRefused is what every error Is that a host must refuse outright
// rather than load without instrumentation: wazero's own checks would not
// cover it either.
var ErrRefused = errors.New("refused")

// refusal is an error that Is ErrRefused, in its own words.
type refusal struct{ msg string }

func (e refusal) Error() string             { return e.msg }
func (e refusal) Is(target error) bool      { return target == ErrRefused }
func refused(format string, a ...any) error { return refusal{fmt.Sprintf(format, a...)} }

// ErrReserved is what the refusal of a module exporting Export or
// StackExport itself Is. A host must refuse it: it could be instrumented
// code posing as a module that needs wazero's checks, and the two share a
// compilation cache.
var ErrReserved error = refusal{"the module exports a name the host reserves"}

// reservedExport is the refusal of a module exporting one of the host's
// names, naming it.
type reservedExport struct{ name string }

func (e reservedExport) Error() string {
	return "the module exports " + e.name + ", a name the host reserves"
}
func (e reservedExport) Is(target error) bool { return target == ErrReserved || target == ErrRefused }

// MaxTableEntries bounds every table: wazero bounds linear memory by the
// host's limit but a table only by its own maximum, up to 2^32 entries of
// 8 bytes, which one table.grow would allocate in the host's memory. The
// largest table of the example modules is binpack.go's, 5,592 entries
// (TinyGo's 31, Rust's 233).
const MaxTableEntries = 1 << 20

// Section ids, and the order in which sections must appear.
const (
	secCustom = 0
	secType   = 1
	secImport = 2
	secTable  = 4
	secMemory = 5
	secGlobal = 6
	secExport = 7
	secStart  = 8
	secCode   = 10
)

var sectionRank = map[byte]int{1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 13: 6, 6: 7, 7: 8, 8: 9, 9: 10, 12: 11, 10: 12, 11: 13}

// Module is an instrumented module.
type Module struct {
	// Code is the instrumented binary.
	Code []byte
	// Loops is the number of loop heads that got a check.
	Loops int
	// Jumps is the number of forward jumps of Go's dispatch loops that
	// now go straight to their block (thread.go).
	Jumps int
	// MaxCharge is the largest charge of any function to the stack
	// budget: a trap with less budget left may be the budget's (stack.go).
	MaxCharge uint32
}

// Instrument returns the module with the interrupt global and a check at
// every loop head. Debug sections (.debug_*) are dropped: they address the
// code by offset, and the checks move it. An error means the module uses
// something the walker does not know (or is not a valid module); the
// caller should then use wazero's termination checks.
func Instrument(code []byte) (Module, error) {
	if len(code) < 8 || !bytes.Equal(code[:4], []byte("\x00asm")) || !bytes.Equal(code[4:8], []byte{1, 0, 0, 0}) {
		return Module{}, fmt.Errorf("not a Wasm 1.0 binary module")
	}
	types, funcTypes, err := readSignatures(code)
	if err != nil {
		return Module{}, err
	}
	var blockTypes map[string]uint32 // the type of each multi-value block
	r := &reader{b: code, pos: 8}
	out := append(make([]byte, 0, len(code)+len(code)/16), code[:8]...)
	var (
		importedFuncs                   uint32
		importedGlobals, definedGlobals uint32
		global                          uint32 // index of the interrupt global
		wroteGlobal, wroteExport        bool
		hasMemory                       bool
		loops, jumps                    int
		maxCharge                       uint32
	)
	writeSection := func(id byte, content []byte) {
		out = append(out, id)
		out = appendU32(out, uint32(len(content)))
		out = append(out, content...)
	}
	// A module without a global or an export section gets one, in its
	// place in the section order.
	fill := func(rank int) {
		if !wroteGlobal && rank > sectionRank[secGlobal] {
			global = importedGlobals
			writeSection(secGlobal, appendGlobals(appendU32(nil, 3)))
			wroteGlobal = true
		}
		if !wroteExport && rank > sectionRank[secExport] {
			writeSection(secExport, appendHostExports(appendU32(nil, 2), global))
			wroteExport = true
		}
	}
	for !r.done() {
		id, err := r.byte()
		if err != nil {
			return Module{}, err
		}
		content, err := r.vec()
		if err != nil {
			return Module{}, fmt.Errorf("section %d: %w", id, err)
		}
		if id != secCustom {
			rank, ok := sectionRank[id]
			if !ok {
				return Module{}, fmt.Errorf("unknown section id %d", id)
			}
			fill(rank)
		}
		switch id {
		case secCustom:
			name, err := (&reader{b: content}).vec()
			if err != nil {
				return Module{}, fmt.Errorf("custom section: %w", err)
			}
			if bytes.HasPrefix(name, []byte(".debug_")) {
				continue
			}
		case secType:
			if content, blockTypes, err = appendBlockTypes(content, types); err != nil {
				return Module{}, fmt.Errorf("type section: %w", err)
			}
		case secImport:
			var memories int
			if importedFuncs, importedGlobals, memories, err = countImports(content); err != nil {
				return Module{}, fmt.Errorf("import section: %w", err)
			}
			hasMemory = hasMemory || memories > 0
		case secMemory:
			hasMemory = true
		case secTable:
			if content, err = capTables(content); err != nil {
				return Module{}, fmt.Errorf("table section: %w", err)
			}
		case secStart:
			// It would run at instantiation, before an instance exists
			// whose interrupt a deadline could set.
			return Module{}, refused("the module has a start function, which would run without a deadline; export _initialize instead (a reactor)")
		case secGlobal:
			cr := &reader{b: content}
			if definedGlobals, err = cr.u32(); err != nil {
				return Module{}, fmt.Errorf("global section: %w", err)
			}
			global = importedGlobals + definedGlobals
			content = appendGlobals(appendU32(nil, definedGlobals+3), content[cr.pos:]...)
			wroteGlobal = true
		case secExport:
			rest, n, err := checkExports(content, global)
			if errors.Is(err, ErrReserved) {
				return Module{}, err
			}
			if err != nil {
				return Module{}, fmt.Errorf("export section: %w", err)
			}
			content = appendHostExports(append(appendU32(nil, n+2), rest...), global)
			wroteExport = true
		case secCode:
			if !hasMemory {
				return Module{}, fmt.Errorf("the module has no memory (the checks call memory.grow)")
			}
			checked, costs, err := callCycles(content, importedFuncs)
			if err != nil {
				return Module{}, fmt.Errorf("code section: %w", err)
			}
			if len(costs) != len(funcTypes) {
				return Module{}, fmt.Errorf("code section: %d bodies for %d functions", len(costs), len(funcTypes))
			}
			plan, err := planStack(costs, checked, funcTypes, types, blockTypes)
			if err != nil {
				return Module{}, err
			}
			maxCharge = slices.Max(append(plan.charge, 0))
			if content, loops, jumps, err = instrumentCode(content, check(global, global+1), global, plan); err != nil {
				return Module{}, fmt.Errorf("code section: %w", err)
			}
		}
		writeSection(id, content)
	}
	fill(len(sectionRank) + 1)
	return Module{Code: out, Loops: loops, Jumps: jumps, MaxCharge: maxCharge}, nil
}

// appendGlobals appends the interrupt flag (mutable i32, initially 0), the
// countdown (mutable i32, initially checkEvery) and the stack budget
// (mutable i32, initially StackBudget).
func appendGlobals(b []byte, before ...byte) []byte {
	b = append(b, before...)
	b = append(b, 0x7f, 0x01, opI32Const, 0x00, opEnd)
	b = append(b, 0x7f, 0x01, opI32Const)
	b = appendS32(b, checkEvery)
	b = append(b, opEnd, 0x7f, 0x01, opI32Const)
	b = appendS32(b, StackBudget)
	return append(b, opEnd)
}

// appendHostExports appends the exports of the interrupt (global) and of
// the stack budget (global+2).
func appendHostExports(b []byte, global uint32) []byte {
	for _, e := range []struct {
		name  string
		index uint32
	}{{Export, global}, {StackExport, global + 2}} {
		b = appendU32(b, uint32(len(e.name)))
		b = append(b, e.name...)
		b = append(b, 0x03) // export kind: global
		b = appendU32(b, e.index)
	}
	return b
}

// checkExports returns the export entries and their count, refusing a
// module that already exports the interrupt's name, or exports a global
// it does not have (globals is how many it has, before the two added).
func checkExports(content []byte, globals uint32) ([]byte, uint32, error) {
	r := &reader{b: content}
	n, err := r.u32()
	if err != nil {
		return nil, 0, err
	}
	start := r.pos
	for i := uint32(0); i < n; i++ {
		name, err := r.vec()
		if err != nil {
			return nil, 0, err
		}
		if string(name) == Export || string(name) == StackExport {
			return nil, 0, reservedExport{string(name)}
		}
		kind, err := r.byte()
		if err != nil {
			return nil, 0, err
		}
		index, err := r.u32()
		if err != nil {
			return nil, 0, err
		}
		if kind == 0x03 && index >= globals {
			return nil, 0, fmt.Errorf("export %q names global %d; the module has %d", name, index, globals)
		}
	}
	return content[start:], n, nil
}

// countImports counts the global imports, which come first in the global
// index space, and the memory imports.
func countImports(content []byte) (funcs, globals uint32, memories int, err error) {
	r := &reader{b: content}
	n, err := r.u32()
	if err != nil {
		return 0, 0, 0, err
	}
	for i := uint32(0); i < n; i++ {
		if _, err := r.vec(); err != nil { // module
			return 0, 0, 0, err
		}
		if _, err := r.vec(); err != nil { // field
			return 0, 0, 0, err
		}
		kind, err := r.byte()
		if err != nil {
			return 0, 0, 0, err
		}
		switch kind {
		case 0x00: // function: type index
			funcs++
			err = r.skipLEB()
		case 0x01: // table: reference type, limits
			if _, err = r.byte(); err == nil {
				err = skipLimits(r)
			}
		case 0x02: // memory: limits
			memories++
			err = skipLimits(r)
		case 0x03: // global: value type, mutability
			globals++
			_, err = r.bytes(2)
		default:
			err = fmt.Errorf("unknown import kind %d", kind)
		}
		if err != nil {
			return 0, 0, 0, err
		}
	}
	return funcs, globals, memories, nil
}

func skipLimits(r *reader) error {
	flags, err := r.byte()
	if err != nil {
		return err
	}
	if flags > 0x07 {
		return fmt.Errorf("unknown limits flags 0x%02x", flags)
	}
	if err := r.skipLEB(); err != nil {
		return err
	}
	if flags&1 != 0 {
		return r.skipLEB()
	}
	return nil
}

// instrumentCode rewrites the code section, body by body; globals is how
// many globals the module has before the three added, and the plan says
// which functions are charged to the stack budget, and so get a check at
// their entry too.
func instrumentCode(content []byte, chk []byte, globals uint32, plan stackPlan) ([]byte, int, int, error) {
	r := &reader{b: content}
	n, err := r.u32()
	if err != nil {
		return nil, 0, 0, err
	}
	out := appendU32(make([]byte, 0, len(content)+len(content)/16), n)
	loops, jumps := 0, 0
	for i := uint32(0); i < n; i++ {
		body, err := r.vec()
		if err != nil {
			return nil, 0, 0, fmt.Errorf("function body %d: %w", i, err)
		}
		var charge *charged
		if plan.charge[i] > 0 {
			charge = &charged{stack: globals + 2, slots: plan.charge[i], blockType: plan.blockTypes[i]}
		}
		body, k, j, err := instrumentBody(body, chk, globals, charge)
		if err != nil {
			return nil, 0, 0, fmt.Errorf("function body %d: %w", i, err)
		}
		loops += k
		jumps += j
		out = appendU32(out, uint32(len(body)))
		out = append(out, body...)
	}
	if !r.done() {
		return nil, 0, 0, fmt.Errorf("%d bytes after the last function body", len(content)-r.pos)
	}
	return out, loops, jumps, nil
}

// capTables gives every table a maximum of at most MaxTableEntries, and
// refuses a table whose minimum is larger.
func capTables(content []byte) ([]byte, error) {
	r := &reader{b: content}
	n, err := r.u32()
	if err != nil {
		return nil, err
	}
	out := appendU32(nil, n)
	for i := uint32(0); i < n; i++ {
		ref, err := r.byte()
		if err != nil {
			return nil, err
		}
		flags, err := r.byte()
		if err != nil {
			return nil, err
		}
		initial, err := r.u32()
		if err != nil {
			return nil, err
		}
		limit := uint32(MaxTableEntries)
		if flags&1 != 0 {
			declared, err := r.u32()
			if err != nil {
				return nil, err
			}
			limit = min(declared, MaxTableEntries)
		} else if flags != 0 {
			return nil, fmt.Errorf("table %d: limits flags 0x%02x", i, flags)
		}
		if initial > MaxTableEntries {
			return nil, refused("table %d starts with %d entries; the host allows at most %d", i, initial, MaxTableEntries)
		}
		out = append(out, ref, 0x01)
		out = appendU32(out, initial)
		out = appendU32(out, limit)
	}
	if !r.done() {
		return nil, fmt.Errorf("%d bytes after the last table", len(content)-r.pos)
	}
	return out, nil
}
