package main

import (
	"math"

	caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"
)

// minResource is the tolerance under which two quantities count as equal
// and a quantity as zero, as in the scheduler's resources.
const minResource = 0.1

// amount is a sum of resources in the scheduler's float units, so that
// every comparison is the native plugin's.
type amount struct {
	cpu, memory float64
	scalars     []named
}

type named struct {
	name string
	v    float64
}

func (a *amount) get(name string) float64 {
	switch name {
	case "cpu":
		return a.cpu
	case "memory":
		return a.memory
	}
	for _, s := range a.scalars {
		if s.name == name {
			return s.v
		}
	}
	return 0
}

// add adds sign times r; a scalar r has is kept even when it sums to zero,
// as the scheduler's resources keep it.
func (a *amount) add(r *caldera.Resource, sign float64) {
	a.cpu += sign * float64(r.MilliCPU)
	a.memory += sign * float64(r.Memory)
scalar:
	for _, s := range r.Scalars {
		for i := range a.scalars {
			if a.scalars[i].name == s.Name {
				a.scalars[i].v += sign * float64(s.Value)
				continue scalar
			}
		}
		a.scalars = append(a.scalars, named{s.Name, sign * float64(s.Value)})
	}
}

func (a *amount) addAmount(b *amount) {
	a.cpu += b.cpu
	a.memory += b.memory
scalar:
	for _, s := range b.scalars {
		for i := range a.scalars {
			if a.scalars[i].name == s.name {
				a.scalars[i].v += s.v
				continue scalar
			}
		}
		a.scalars = append(a.scalars, s)
	}
}

// lessEqual says a fits in b in every dimension within the tolerance, a
// scalar b lacks counting as zero.
func (a *amount) lessEqual(b *amount) bool {
	if !lessEqualTol(a.cpu, b.cpu) || !lessEqualTol(a.memory, b.memory) {
		return false
	}
	for _, s := range a.scalars {
		if !lessEqualTol(s.v, b.get(s.name)) {
			return false
		}
	}
	return true
}

func lessEqualTol(l, r float64) bool { return l < r || math.Abs(l-r) < minResource }

// names lists the dimensions a request asks for (at least the tolerance):
// CPU, memory, then its scalars by name.
func (a *amount) names(out []string) []string {
	out = out[:0]
	if a.cpu >= minResource {
		out = append(out, "cpu")
	}
	if a.memory >= minResource {
		out = append(out, "memory")
	}
	for _, s := range a.scalars {
		if s.v >= minResource {
			out = append(out, s.name)
		}
	}
	return out
}

func amountOf(r *caldera.Resource) amount {
	var a amount
	a.add(r, 1)
	return a
}
