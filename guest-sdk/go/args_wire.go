package caldera

import (
	"encoding/binary"
	"math"

	"github.com/caldera-scheduler/caldera/guest-sdk/go/internal/wire"
)

// The batch hooks' handles and scores are read and written here by hand:
// they are hundreds of numbers a call, and the generated codec's general
// readers and writers cost more per number in a TinyGo module than the
// plugin's own work on a node. What these functions accept and produce is
// what the generated Args codec does (TestArgsMatchGenerated); both refuse
// an array count longer than the bytes left (wire.ReadArrayHeaderBytes).

// readArgs decodes a hook's request arguments into a, reusing its slices,
// and returns the bytes that follow them. Absent fields keep what a holds;
// unknown keys are skipped, as a newer host may send fields this SDK does
// not know; nil is no arguments.
func readArgs(a *Args, b []byte) ([]byte, error) {
	if wire.IsNil(b) {
		return b[1:], nil
	}
	n, b, err := wire.ReadMapHeaderBytes(b)
	if err != nil {
		return b, err
	}
	for i := uint32(0); i < n; i++ {
		var key []byte
		if key, b, err = wire.ReadMapKeyZC(b); err != nil {
			return b, err
		}
		switch unsafeString(key) {
		case "task":
			a.Task, b, err = wire.ReadInt32Bytes(b)
		case "job":
			a.Job, b, err = wire.ReadInt32Bytes(b)
		case "queue":
			a.Queue, b, err = wire.ReadInt32Bytes(b)
		case "nodes":
			a.Nodes, b, err = readHandles(a.Nodes, b)
		case "tasks":
			a.Tasks, b, err = readHandles(a.Tasks, b)
		case "jobs":
			a.Jobs, b, err = readHandles(a.Jobs, b)
		case "queues":
			a.Queues, b, err = readHandles(a.Queues, b)
		case "scores":
			a.Scores, b, err = readFloats(a.Scores, b)
		case "trial":
			a.Trial, b, err = wire.ReadBoolBytes(b)
		case "kind":
			a.Kind, b, err = wire.ReadInt32Bytes(b)
		case "hyperNode":
			a.HyperNode, b, err = wire.ReadStringBytes(b)
		case "jobHyperNode":
			a.JobHyperNode, b, err = wire.ReadInt32Bytes(b)
		case "hyperNodes":
			a.HyperNodes, b, err = readHandles(a.HyperNodes, b)
		case "allocatedHyperNode":
			a.Allocated, b, err = wire.ReadInt32Bytes(b)
		case "within":
			a.Within, b, err = wire.ReadInt32Bytes(b)
		case "scope":
			a.Scope, b, err = wire.ReadInt32Bytes(b)
		case "purpose":
			a.Purpose, b, err = wire.ReadInt32Bytes(b)
		case "now":
			a.Now, b, err = wire.ReadInt64Bytes(b)
		case "claims":
			// Rare and small: the generated reader serves it.
			b, err = a.Claims.UnmarshalMsg(b)
		default:
			b, err = wire.Skip(b)
		}
		if err != nil {
			return b, wrap(string(key), err)
		}
	}
	return b, nil
}

// readHandles reads an array of int32 into dst[:0]. The scheduler writes
// each handle as a 32-bit int; that form and the short positive ones are
// read in line, any other by wire.ReadInt32Bytes.
func readHandles(dst []int32, b []byte) ([]int32, []byte, error) {
	dst, b, err := sized(dst, b)
	if err != nil {
		return dst, b, err
	}
	for i := range dst {
		if len(b) >= 3 {
			switch c := b[0]; {
			case c < 0x80:
				dst[i], b = int32(c), b[1:]
				continue
			case c == 0xcc:
				dst[i], b = int32(b[1]), b[2:]
				continue
			case c == 0xcd:
				dst[i], b = int32(binary.BigEndian.Uint16(b[1:])), b[3:]
				continue
			case c == 0xd2 && len(b) >= 5:
				dst[i], b = int32(binary.BigEndian.Uint32(b[1:])), b[5:]
				continue
			}
		}
		if dst[i], b, err = wire.ReadInt32Bytes(b); err != nil {
			return dst[:i], b, err
		}
	}
	return dst, b, nil
}

// readFloats reads an array of float64 into dst[:0], taking any number
// form wire.ReadFloat64Bytes takes.
func readFloats(dst []float64, b []byte) ([]float64, []byte, error) {
	dst, b, err := sized(dst, b)
	if err != nil {
		return dst, b, err
	}
	for i := range dst {
		if len(b) >= 9 && b[0] == 0xcb {
			dst[i], b = math.Float64frombits(binary.BigEndian.Uint64(b[1:])), b[9:]
			continue
		}
		if dst[i], b, err = wire.ReadFloat64Bytes(b); err != nil {
			return dst[:i], b, err
		}
	}
	return dst, b, nil
}

// sized reads an array header and returns dst with as many elements,
// reusing its array when large enough.
func sized[T any](dst []T, b []byte) ([]T, []byte, error) {
	n, b, err := wire.ReadArrayHeaderBytes(b) // n is at most len(b)
	if err != nil {
		return dst[:0], b, err
	}
	if cap(dst) < int(n) {
		dst = make([]T, n)
	}
	return dst[:n], b, nil
}

// appendFloats appends fs as an array of float64, growing b once.
func appendFloats(b []byte, fs []float64) []byte {
	b = wire.AppendArrayHeader(b, uint32(len(fs)))
	start := len(b)
	end := start + 9*len(fs)
	if cap(b) < end {
		grown := make([]byte, start, 2*cap(b)+9*len(fs))
		copy(grown, b)
		b = grown
	}
	b = b[:end]
	for i, f := range fs {
		o := b[start+9*i : start+9*i+9]
		o[0] = 0xcb
		binary.BigEndian.PutUint64(o[1:], math.Float64bits(f))
	}
	return b
}
