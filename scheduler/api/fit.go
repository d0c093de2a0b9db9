package api

import (
	"encoding/binary"
	"math"
	"sort"
	"sync"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
)

// Fit answers, for one request, whether it fits a node's idle resources and
// in which dimension, if any, it exceeds the node's future idle resources
// (Idle + Releasing - Pipelined). Answers are remembered per node and reused
// until the node's Generation changes, so that the many tasks of a gang,
// which share one request, check each unchanged node once per session
// instead of once per task.
//
// The answers equal r.LessEqual(node.Idle, Zero) and
// r.LessEqual(node.FutureIdle(), Zero), computed without building a
// resource or ranging over a map. A Fit may be used from many goroutines.
type Fit struct {
	req     *Resource
	scalars []scalarQuantity
	nodes   []*NodeInfo
	// memo holds, per node index, (generation+1)<<memoGenShift |
	// idle-fit bit | shortfall code; 0 means not yet known.
	memo []atomic.Uint64
}

type scalarQuantity struct {
	name v1.ResourceName
	q    float64
}

// Shortfall codes: which dimension a request exceeds first, in the order
// cpu, memory, then scalars by name.
const (
	fitsAll uint64 = iota
	shortCPU
	shortMemory
	shortScalarBase
)

const (
	memoIdleBit  uint64 = 1 << 15
	memoCodeMask uint64 = memoIdleBit - 1
	memoGenShift        = 16
)

func newFit(req *Resource, nodes []*NodeInfo) *Fit {
	f := &Fit{req: req, nodes: nodes, memo: make([]atomic.Uint64, len(nodes))}
	for name, q := range req.Scalars {
		f.scalars = append(f.scalars, scalarQuantity{name, q})
	}
	// A stable order, so that the first lacking dimension is reproducible.
	sort.Slice(f.scalars, func(i, j int) bool { return f.scalars[i].name < f.scalars[j].name })
	return f
}

// FitsIdle reports whether the request fits the node's idle resources.
func (f *Fit) FitsIdle(node *NodeInfo) bool { return f.answer(node)&memoIdleBit != 0 }

// FitsFutureIdle reports whether the request fits the node's future idle
// resources.
func (f *Fit) FitsFutureIdle(node *NodeInfo) bool { return f.answer(node)&memoCodeMask == fitsAll }

// Shortfall names the first dimension in which the request exceeds the
// node's future idle resources ("cpu", "memory", or a scalar name), or "".
func (f *Fit) Shortfall(node *NodeInfo) string {
	switch code := f.answer(node) & memoCodeMask; code {
	case fitsAll:
		return ""
	case shortCPU:
		return string(v1.ResourceCPU)
	case shortMemory:
		return string(v1.ResourceMemory)
	default:
		return string(f.scalars[code-shortScalarBase].name)
	}
}

// FitsIdleAt is FitsIdle for a node the caller knows to be at position
// pos of the list the Fit was made for, with Generation gen: it reads the
// node itself only when its answer is not remembered.
func (f *Fit) FitsIdleAt(node *NodeInfo, pos int, gen uint64) bool {
	return f.answerAt(node, pos, gen)&memoIdleBit != 0
}

func (f *Fit) answer(node *NodeInfo) uint64 { return f.answerAt(node, node.Index, node.Generation) }

func (f *Fit) answerAt(node *NodeInfo, i int, gen uint64) uint64 {
	if i < 0 || i >= len(f.nodes) || f.nodes[i] != node {
		return f.compute(node)
	}
	tag := (gen + 1) << memoGenShift
	slot := &f.memo[i]
	if v := slot.Load(); v&^(memoIdleBit|memoCodeMask) == tag {
		return v & (memoIdleBit | memoCodeMask)
	}
	v := f.compute(node)
	slot.Store(tag | v)
	return v
}

func fitsTol(req, avail float64) bool { return req < avail || math.Abs(req-avail) < minResource }

func (f *Fit) compute(node *NodeInfo) uint64 {
	var v uint64
	if f.fitsIdle(node.Idle) {
		v = memoIdleBit
	}
	return v | f.shortfall(node)
}

func (f *Fit) fitsIdle(idle *Resource) bool {
	if !fitsTol(f.req.MilliCPU, idle.MilliCPU) || !fitsTol(f.req.Memory, idle.Memory) {
		return false
	}
	for _, s := range f.scalars {
		if !fitsTol(s.q, idle.Scalars[s.name]) {
			return false
		}
	}
	return true
}

func (f *Fit) shortfall(node *NodeInfo) uint64 {
	idle, rel, pipe := node.Idle, node.Releasing, node.Pipelined
	if !fitsTol(f.req.MilliCPU, idle.MilliCPU+rel.MilliCPU-pipe.MilliCPU) {
		return shortCPU
	}
	if !fitsTol(f.req.Memory, idle.Memory+rel.Memory-pipe.Memory) {
		return shortMemory
	}
	// FutureIdle subtracts pipelined scalars only when the sum of idle and
	// releasing has a scalar map at all (Resource.Sub's rule).
	subPipelined := idle.Scalars != nil || len(rel.Scalars) > 0
	for k, s := range f.scalars {
		avail := idle.Scalars[s.name] + rel.Scalars[s.name]
		if subPipelined {
			avail -= pipe.Scalars[s.name]
		}
		if !fitsTol(s.q, avail) {
			return shortScalarBase + uint64(k)
		}
	}
	return fitsAll
}

// FitCache hands out one Fit per distinct request over a fixed node list
// (a session's). It is safe for concurrent use.
type FitCache struct {
	nodes []*NodeInfo
	mu    sync.Mutex
	byKey map[string]*Fit
	key   []byte
}

// NewFitCache returns a cache over nodes; each node's Index must be its
// position in nodes for its answers to be remembered.
func NewFitCache(nodes []*NodeInfo) *FitCache {
	return &FitCache{nodes: nodes, byKey: map[string]*Fit{}}
}

// For returns the Fit of req, shared with every equal request.
func (c *FitCache) For(req *Resource) *Fit {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.key = appendRequestKey(c.key[:0], req)
	if f := c.byKey[string(c.key)]; f != nil {
		return f
	}
	f := newFit(req, c.nodes)
	c.byKey[string(c.key)] = f
	return f
}

// NewFit returns a Fit that remembers nothing, for one-off checks.
func NewFit(req *Resource) *Fit { return newFit(req, nil) }

// appendRequestKey encodes req so that equal requests give equal keys.
func appendRequestKey(buf []byte, req *Resource) []byte {
	buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(req.MilliCPU))
	buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(req.Memory))
	names := make([]string, 0, len(req.Scalars))
	for n := range req.Scalars {
		names = append(names, string(n))
	}
	sort.Strings(names)
	for _, n := range names {
		buf = binary.AppendUvarint(buf, uint64(len(n)))
		buf = append(buf, n...)
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(req.Scalars[v1.ResourceName(n)]))
	}
	return buf
}
