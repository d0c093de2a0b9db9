package main

import (
	"math"
	"slices"
	"strings"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

// resource is the scheduler's api.Resource: float quantities, and scalars
// whose presence matters, because several operations treat an absent
// dimension differently from a zero one, and so does a nil scalar list
// differently from an empty one, as the scheduler's nil and empty maps. The
// methods below follow api.Resource and hostplugins/internal/resutil
// operation for operation, so that deserved shares come out bit for bit the
// same.
type resource struct {
	milliCPU, memory float64
	scalars          scalarList
}

// scalarList holds scalar dimensions by name in a short list searched
// linearly, not a map (the overcommit port's is the same): under TinyGo every lookup in a map with string keys
// allocates (RATIONALE.md), and this plugin looks scalars up on every
// allocatable call and every placement, so a map made the collector walk
// the session's view over and over. A resource has a handful of scalars.
type scalarList []scalarQty

type scalarQty struct {
	name string
	q    float64
}

// index returns the position of n, -1 when absent.
func (l scalarList) index(n string) int {
	for i := range l {
		if l[i].name == n {
			return i
		}
	}
	return -1
}

// get returns the quantity of n and whether the dimension is present.
func (l scalarList) get(n string) (float64, bool) {
	if i := l.index(n); i >= 0 {
		return l[i].q, true
	}
	return 0, false
}

// value is get without the presence: an absent dimension is 0.
func (l scalarList) value(n string) float64 {
	q, _ := l.get(n)
	return q
}

// at returns a pointer to the quantity of n, adding the dimension at 0 when
// absent; the pointer is valid until the list grows.
func (l *scalarList) at(n string) *float64 {
	i := l.index(n)
	if i < 0 {
		i = len(*l)
		*l = append(*l, scalarQty{name: n})
	}
	return &(*l)[i].q
}

// minResource is the scheduler's tolerance: quantities closer than this are
// equal, and a quantity below it is zero.
const minResource = 0.1

// dimDefault says what a scalar dimension the right-hand side lacks is
// worth in a comparison.
type dimDefault int

const (
	zero     dimDefault = 0
	infinity dimDefault = -1
)

func fromView(d *caldera.Resource) *resource {
	r := &resource{}
	r.addView(d)
	return r
}

// setView makes r what fromView(d) returns, keeping r's list for reuse
// when d has scalars (fromView's result has none, nil, when d has none).
func (r *resource) setView(d *caldera.Resource) *resource {
	list := r.scalars[:0]
	*r = resource{}
	if len(d.Scalars) > 0 {
		r.scalars = list
	}
	return r.addView(d)
}

func (r *resource) clone() *resource {
	c := &resource{milliCPU: r.milliCPU, memory: r.memory}
	c.scalars = slices.Clone(r.scalars) // nil stays nil, empty stays empty
	return c
}

// copyFrom makes r equal to d, reusing r's list.
func (r *resource) copyFrom(d *resource) {
	r.milliCPU, r.memory = d.milliCPU, d.memory
	if d.scalars == nil {
		r.scalars = nil
		return
	}
	if r.scalars == nil {
		r.scalars = make(scalarList, 0, len(d.scalars))
	}
	r.scalars = append(r.scalars[:0], d.scalars...)
}

func (r *resource) get(dim int, name string) float64 {
	switch dim {
	case dimCPU:
		return r.milliCPU
	case dimMemory:
		return r.memory
	}
	return r.scalars.value(name)
}

const (
	dimCPU = iota
	dimMemory
	dimScalar
)

func (r *resource) add(d *resource) *resource {
	r.milliCPU += d.milliCPU
	r.memory += d.memory
	for _, e := range d.scalars {
		*r.scalar(e.name) += e.q
	}
	return r
}

func (r *resource) addView(d *caldera.Resource) *resource {
	r.milliCPU += float64(d.MilliCPU)
	r.memory += float64(d.Memory)
	for _, sc := range d.Scalars {
		*r.scalar(sc.Name) += float64(sc.Value)
	}
	return r
}

// sub subtracts d; like api.Resource.Sub it leaves scalars alone when r has
// none.
func (r *resource) sub(d *resource) *resource {
	r.milliCPU -= d.milliCPU
	r.memory -= d.memory
	if r.scalars == nil {
		return r
	}
	for _, e := range d.scalars {
		*r.scalars.at(e.name) -= e.q
	}
	return r
}

func (r *resource) subView(d *caldera.Resource) *resource {
	r.milliCPU -= float64(d.MilliCPU)
	r.memory -= float64(d.Memory)
	if r.scalars == nil {
		return r
	}
	for _, sc := range d.Scalars {
		*r.scalars.at(sc.Name) -= float64(sc.Value)
	}
	return r
}

func (r *resource) multi(ratio float64) *resource {
	r.milliCPU *= ratio
	r.memory *= ratio
	for i := range r.scalars {
		r.scalars[i].q *= ratio
	}
	return r
}

// minDimension lowers each dimension of r to d's where d's is smaller; a
// scalar d lacks is left as is (infinity) or becomes 0 (zero).
func (r *resource) minDimension(d *resource, def dimDefault) *resource {
	r.milliCPU = math.Min(r.milliCPU, d.milliCPU)
	r.memory = math.Min(r.memory, d.memory)
	for i, e := range r.scalars {
		dq, ok := d.scalars.get(e.name)
		if !ok {
			if def == zero {
				r.scalars[i].q = 0
			}
			continue
		}
		r.scalars[i].q = math.Min(e.q, dq)
	}
	return r
}

func lessEqualTol(l, r float64) bool { return l < r || math.Abs(l-r) < minResource }

// lessEqual reports whether every dimension of r is at most d's, within the
// tolerance.
func (r *resource) lessEqual(d *resource, def dimDefault) bool {
	if !lessEqualTol(r.milliCPU, d.milliCPU) || !lessEqualTol(r.memory, d.memory) {
		return false
	}
	if def == infinity {
		for _, e := range d.scalars {
			if _, ok := r.scalars.get(e.name); !ok {
				return false
			}
		}
	}
	for _, e := range r.scalars {
		dq, ok := d.scalars.get(e.name)
		if !ok && def == infinity {
			continue
		}
		if !lessEqualTol(e.q, dq) {
			return false
		}
	}
	return true
}

// isEmpty: every dimension but "pods" is below the tolerance.
func (r *resource) isEmpty() bool {
	if r.milliCPU >= minResource || r.memory >= minResource {
		return false
	}
	for _, e := range r.scalars {
		if e.name != "pods" && e.q >= minResource {
			return false
		}
	}
	return true
}

// exceededPart returns the part of l that exceeds r, per dimension.
func exceededPart(l, r *resource) *resource { return exceededPartInto(&resource{}, l, r) }

// exceededPartInto is exceededPart written into out, whose list is reused.
func exceededPartInto(out, l, r *resource) *resource {
	out.reset()
	out.milliCPU = math.Max(0, l.milliCPU-r.milliCPU)
	out.memory = math.Max(0, l.memory-r.memory)
	for _, e := range l.scalars {
		if d := e.q - r.scalars.value(e.name); d > 0 {
			out.set(e.name, d)
		}
	}
	return out
}

func (r *resource) set(n string, q float64) { *r.scalar(n) = q }

// scalar returns a pointer to the quantity of n, adding the dimension at 0,
// and the list when r has none, as assigning to a nil map's entry would
// have needed the map made first.
func (r *resource) scalar(n string) *float64 {
	if r.scalars == nil {
		r.scalars = scalarList{}
	}
	return r.scalars.at(n)
}

// maxOf returns the larger of l and r in every dimension, dropping negative
// scalars.
func maxOf(l, r *resource) *resource {
	out := &resource{}
	out.milliCPU = max(l.milliCPU, r.milliCPU)
	out.memory = max(l.memory, r.memory)
	if l.scalars == nil && r.scalars == nil {
		return out
	}
	out.scalars = scalarList{}
	for _, e := range l.scalars {
		if e.q >= 0 {
			*out.scalars.at(e.name) = e.q
		}
	}
	for _, e := range r.scalars {
		if e.q >= 0 {
			p := out.scalars.at(e.name)
			*p = max(e.q, *p)
		}
	}
	return out
}

// diff splits cur-prev into what grew and what shrank, a dimension missing
// on one side counting as zero.
func diff(cur, prev *resource) (grown, shrunk *resource) {
	grown = &resource{scalars: scalarList{}}
	shrunk = &resource{scalars: scalarList{}}
	split := func(c, p float64) (float64, float64) {
		if c > p {
			return c - p, 0
		}
		return 0, p - c
	}
	grown.milliCPU, shrunk.milliCPU = split(cur.milliCPU, prev.milliCPU)
	grown.memory, shrunk.memory = split(cur.memory, prev.memory)
	for _, e := range cur.scalars {
		diffScalar(grown, shrunk, e.name, e.q, prev.scalars.value(e.name))
	}
	for _, e := range prev.scalars {
		if _, done := cur.scalars.get(e.name); !done {
			diffScalar(grown, shrunk, e.name, 0, e.q)
		}
	}
	return grown, shrunk
}

func diffScalar(grown, shrunk *resource, n string, c, p float64) {
	if c > p {
		*grown.scalars.at(n) = c - p
	} else {
		*shrunk.scalars.at(n) = p - c
	}
}

// identical reports exact equality, an absent scalar map equal to an empty
// one but an absent dimension not equal to a zero one.
func identical(a, b *resource) bool {
	if a.milliCPU != b.milliCPU || a.memory != b.memory {
		return false
	}
	if len(a.scalars) != len(b.scalars) {
		return false
	}
	for _, e := range a.scalars {
		if bq, ok := b.scalars.get(e.name); !ok || bq != e.q {
			return false
		}
	}
	return true
}

// share is used/total, nothing of nothing counting as 0 and something of
// nothing as 1.
func share(used, total float64) float64 {
	if total == 0 {
		if used == 0 {
			return 0
		}
		return 1
	}
	return used / total
}

// fitsRequested reports whether l stays within limit in the dimensions req
// asks for (cpu, memory, positive scalars other than pods), with a strict
// comparison and no tolerance; when l has no scalars only cpu and memory
// are compared.
func fitsRequested(l, req, limit *resource) bool {
	if req.milliCPU > 0 && l.milliCPU > limit.milliCPU {
		return false
	}
	if req.memory > 0 && l.memory > limit.memory {
		return false
	}
	if l.scalars == nil {
		return true
	}
	for _, e := range req.scalars {
		if e.name == "pods" || e.q <= 0 {
			continue
		}
		if l.scalars.value(e.name) > limit.scalars.value(e.name) {
			return false
		}
	}
	return true
}

// reset makes r zero, keeping its list (emptied) for reuse.
func (r *resource) reset() {
	r.milliCPU, r.memory = 0, 0
	r.scalars = r.scalars[:0]
}

// unmetMinResources is the part of minResources that allocated does not
// cover yet: what an admitted job still has a claim on. Quota-style
// "count/..." names and ephemeral storage are skipped; a scalar dimension
// that nothing allocated reserves all of its minimum.
// It is written into out, whose list is reused.
func unmetMinResources(out *resource, need *caldera.Resource, allocated *resource) *resource {
	out.reset()
	if d := float64(need.MilliCPU) - allocated.milliCPU; d > 0 {
		out.milliCPU = d
	}
	if d := float64(need.Memory) - allocated.memory; d > 0 {
		out.memory = d
	}
	for _, sc := range need.Scalars {
		n, want := sc.Name, float64(sc.Value)
		switch {
		case n == "pods":
			if d := want - allocated.scalars.value(n); d > 0 {
				out.set(n, d)
			}
		case strings.HasPrefix(n, "count/") || n == "ephemeral-storage":
		default:
			got, ok := allocated.scalars.get(n)
			if !ok {
				out.set(n, want)
			} else if d := want - got; d > 0 {
				out.set(n, d)
			}
		}
	}
	return out
}
