package caldera

import (
	"testing"

	"github.com/tinylib/msgp/msgp"
)

// Every integer encoding of an event reads as the same three values,
// whether the in-line reader takes it or leaves it to the general one.
func TestEventReadsAlikeInEveryEncoding(t *testing.T) {
	want := [3]int32{eventAllocate, 70000, -1}
	forms := map[string][]byte{
		"int32, as the scheduler writes":   appendInt32Form(appendInt32Form(appendInt32Form([]byte{0x93}, want[0]), want[1]), want[2]),
		"smallest":                         msgp.AppendInt32(msgp.AppendInt32(msgp.AppendInt32(msgp.AppendArrayHeader(nil, 3), want[0]), want[1]), want[2]),
		"uint and int64":                   msgp.AppendInt64(msgp.AppendUint32(msgp.AppendUint8(msgp.AppendArrayHeader(nil, 3), uint8(want[0])), uint32(want[1])), int64(want[2])),
		"a fourth field from a newer host": appendInt32Form(appendInt32Form(appendInt32Form(appendInt32Form([]byte{0x94}, want[0]), want[1]), want[2]), 9),
	}
	for name, b := range forms {
		b = append(b, 0xc0) // what follows the event must be left unread
		ev, rest, ok := readEvent(b)
		if !ok {
			if ev, rest, err := readEventSlowly(b); err != nil || ev != want || len(rest) != 1 {
				t.Errorf("%s: read slowly as %v, %d bytes left, %v", name, ev, len(rest), err)
			}
			continue
		}
		if ev != want || len(rest) != 1 {
			t.Errorf("%s: read as %v with %d bytes left, want %v and 1", name, ev, len(rest), want)
		}
	}
	// The forms the scheduler writes, and the smallest, take the in-line path.
	for _, name := range []string{"int32, as the scheduler writes", "smallest"} {
		if _, _, ok := readEvent(forms[name]); !ok {
			t.Errorf("%s: left to the general reader", name)
		}
	}
	// A truncated event is an error, not a guess.
	short := forms["int32, as the scheduler writes"][:9]
	if _, _, ok := readEvent(short); ok {
		t.Error("a truncated event read in line")
	}
	if _, _, err := readEventSlowly(short); err == nil {
		t.Error("a truncated event read without an error")
	}
}

// appendInt32Form appends v as msgpack's int32 (0xd2), whatever its size,
// as the scheduler writes handles.
func appendInt32Form(b []byte, v int32) []byte {
	return append(b, 0xd2, byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
}
