package interrupt

import (
	"fmt"
	"slices"
)

// callCycles says, per function of the code section, whether it gets a
// check at its entry as well as at its loop heads: a call without a loop
// can still run for years, when it recurses wide (each call making two,
// sixty levels deep), and a deep recursion alone ends in a stack overflow.
// Only a cycle of calls can run long without a loop, and every cycle passes
// through a function that either calls indirectly or is on a cycle of
// direct calls: those get the check. Functions that are neither (most
// leaves and straight-line helpers) pay nothing.
// The same walk returns each body's cost to the stack (stack.go).
func callCycles(content []byte, importedFuncs uint32) ([]bool, []bodyCost, error) {
	r := &reader{b: content}
	n, err := r.u32()
	if err != nil {
		return nil, nil, err
	}
	costs := make([]bodyCost, 0, min(n, 1<<16))
	calls := make([][]uint32, 0, min(n, 1<<16))
	checked := make([]bool, 0, min(n, 1<<16))
	for i := uint32(0); i < n; i++ {
		body, err := r.vec()
		if err != nil {
			return nil, nil, fmt.Errorf("function body %d: %w", i, err)
		}
		c, err := costOf(body, importedFuncs, n)
		if err != nil {
			return nil, nil, fmt.Errorf("function body %d: %w", i, err)
		}
		costs = append(costs, c)
		calls = append(calls, c.calls)
		checked = append(checked, c.indirect)
	}
	for _, scc := range cycles(calls) {
		for _, f := range scc {
			checked[f] = true
		}
	}
	return checked, costs, nil
}

// costOf returns the module's functions a body calls directly (by index
// among the defined functions; imports are the host's and never call
// back), whether it calls indirectly, and its weight: its locals and its
// instructions.
func costOf(body []byte, importedFuncs, defined uint32) (bodyCost, error) {
	r := &reader{b: body}
	locals, err := countLocals(r)
	if err != nil {
		return bodyCost{}, err
	}
	c := bodyCost{weight: locals}
	for !r.done() {
		op, err := r.byte()
		if err != nil {
			return bodyCost{}, err
		}
		start := r.pos
		if err := skipImmediates(r, op); err != nil {
			return bodyCost{}, err
		}
		c.weight++
		switch op {
		case opCall:
			f, _ := (&reader{b: body[start:r.pos]}).u32()
			if f >= importedFuncs && f-importedFuncs < defined {
				c.calls = append(c.calls, f-importedFuncs)
			}
		case opCallIndirect:
			c.indirect = true
		}
	}
	return c, nil
}

// cycles returns the strongly connected components of the call graph that
// hold a cycle (more than one function, or one that calls itself), by
// Tarjan's algorithm, iteratively: a module's call chains can be deeper
// than a goroutine's stack should be asked to follow.
func cycles(calls [][]uint32) [][]uint32 {
	n := len(calls)
	index := make([]int, n)
	low := make([]int, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	var (
		stack []uint32
		out   [][]uint32
		next  int
	)
	type frame struct {
		f    uint32
		edge int
	}
	for root := range calls {
		if index[root] >= 0 {
			continue
		}
		work := []frame{{uint32(root), 0}}
		index[root], low[root] = next, next
		next++
		stack = append(stack, uint32(root))
		onStack[root] = true
		for len(work) > 0 {
			top := &work[len(work)-1]
			f := top.f
			if top.edge < len(calls[f]) {
				g := calls[f][top.edge]
				top.edge++
				switch {
				case index[g] < 0:
					index[g], low[g] = next, next
					next++
					stack = append(stack, g)
					onStack[g] = true
					work = append(work, frame{g, 0})
				case onStack[g]:
					low[f] = min(low[f], index[g])
				}
				continue
			}
			work = work[:len(work)-1]
			if len(work) > 0 {
				parent := work[len(work)-1].f
				low[parent] = min(low[parent], low[f])
			}
			if low[f] != index[f] {
				continue
			}
			var scc []uint32
			for {
				g := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[g] = false
				scc = append(scc, g)
				if g == f {
					break
				}
			}
			if len(scc) > 1 || slices.Contains(calls[f], f) {
				out = append(out, scc)
			}
		}
	}
	return out
}
