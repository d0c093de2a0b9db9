package caldera

import (
	"sort"
	"unsafe"

	"github.com/caldera-scheduler/caldera/guest-sdk/go/internal/wire"
)

// Scalar is one scalar dimension of a Resource.
type Scalar struct {
	Name  string
	Value int64
}

// Scalars are a Resource's scalar dimensions, sorted by name, without
// repeats. A slice rather than a map: under TinyGo a lookup in a map with
// string keys allocates, and every allocation in a hot hook brings the
// conservative collector closer to marking the whole session view. A
// resource has a handful of scalars; a linear scan finds one in a few
// comparisons.
//
// On the wire Scalars are a map from name to amount (docs/abi.md).
type Scalars []Scalar

// ScalarsOf builds Scalars from a map, for tests and literals.
func ScalarsOf(m map[string]int64) Scalars {
	s := make(Scalars, 0, len(m))
	for name, v := range m {
		s = append(s, Scalar{Name: name, Value: v})
	}
	sort.Slice(s, func(i, j int) bool { return s[i].Name < s[j].Name })
	return s
}

// Get returns the amount of one dimension, 0 when absent.
func (s Scalars) Get(name string) int64 {
	v, _ := s.Lookup(name)
	return v
}

// Lookup returns the amount of one dimension and whether it is present.
func (s Scalars) Lookup(name string) (int64, bool) {
	for i := range s {
		if s[i].Name == name {
			return s[i].Value, true
		}
	}
	return 0, false
}

// Add adds v to one dimension, inserting it in order when absent.
func (s *Scalars) Add(name string, v int64) {
	i := s.search(name)
	if i < len(*s) && (*s)[i].Name == name {
		(*s)[i].Value += v
		return
	}
	*s = append(*s, Scalar{})
	copy((*s)[i+1:], (*s)[i:])
	(*s)[i] = Scalar{Name: name, Value: v}
}

// addAll adds sign × each of d's dimensions. An event adds a task's
// request to a node's usage, and the two usually name the same dimensions
// in the same order, with the decoder's shared strings (intern.go): that
// case is a walk side by side that compares no string contents, which in
// a Go-toolchain module is a runtime call per comparison.
func (s *Scalars) addAll(d Scalars, sign int64) {
	r := *s
	if len(r) == len(d) {
		i := 0
		for i < len(d) && sameString(r[i].Name, d[i].Name) {
			i++
		}
		if i == len(d) {
			for i := range d {
				r[i].Value += sign * d[i].Value
			}
			return
		}
	}
	for _, sc := range d {
		s.Add(sc.Name, sign*sc.Value)
	}
}

// sameString reports whether a and b are the same string in memory, or
// else have the same contents.
func sameString(a, b string) bool {
	return len(a) == len(b) && (unsafe.StringData(a) == unsafe.StringData(b) || a == b)
}

// Set sets one dimension, inserting it in order when absent.
func (s *Scalars) Set(name string, v int64) {
	i := s.search(name)
	if i < len(*s) && (*s)[i].Name == name {
		(*s)[i].Value = v
		return
	}
	s.Add(name, v)
}

// search returns the position of name, or where it would be inserted.
func (s *Scalars) search(name string) int {
	i := 0
	for i < len(*s) && (*s)[i].Name < name {
		i++
	}
	return i
}

// sortNames restores the order after decoding a map whose keys another
// encoder did not sort; the host sorts them, so this is usually a no-op.
func (s Scalars) sortNames() {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j].Name < s[j-1].Name; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// MarshalMsg appends the scalars as a msgpack map.
func (s Scalars) MarshalMsg(b []byte) ([]byte, error) {
	b = wire.AppendMapHeader(b, uint32(len(s)))
	for _, sc := range s {
		b = wire.AppendString(b, sc.Name)
		b = wire.AppendInt64(b, sc.Value)
	}
	return b, nil
}

// UnmarshalMsg decodes a msgpack map (or nil) into the scalars, reusing
// their storage.
func (s *Scalars) UnmarshalMsg(b []byte) ([]byte, error) {
	*s = (*s)[:0]
	if wire.IsNil(b) {
		return wire.ReadNilBytes(b)
	}
	n, b, err := wire.ReadMapHeaderBytes(b)
	if err != nil {
		return b, wire.WrapError(err, "Scalars")
	}
	for ; n > 0; n-- {
		var name []byte
		var v int64
		if name, b, err = wire.ReadStringZC(b); err != nil {
			return b, wire.WrapError(err, "Scalars")
		}
		if v, b, err = wire.ReadInt64Bytes(b); err != nil {
			return b, wire.WrapError(err, "Scalars", string(name))
		}
		*s = append(*s, Scalar{Name: intern(name), Value: v})
	}
	s.sortNames()
	return b, nil
}

// Msgsize bounds the encoded size.
func (s Scalars) Msgsize() int {
	n := wire.MapHeaderSize
	for _, sc := range s {
		n += wire.StringPrefixSize + len(sc.Name) + wire.Int64Size
	}
	return n
}
