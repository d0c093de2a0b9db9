package runtime

import (
	"bytes"
	"errors"
	"testing"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/caldera-scheduler/caldera/abi"
)

// Replies a hostile guest could send to crash the host through the
// reflection decoder are refused before it runs: nesting deeper than the
// stack allows, and counts that would make the decoder allocate far more
// than the reply holds. Well-formed replies of every shape pass.
func TestGuestMsgpackIsCheckedBeforeReflection(t *testing.T) {
	deep := append([]byte{0x93, 0x00, 0xa0}, bytes.Repeat([]byte{0x91}, 1<<20)...) // [0, "", [[[[...
	deep = append(deep, 0xc0)
	hugeArray := []byte{0x93, 0x00, 0xa0, 0xdd, 0xff, 0xff, 0xff, 0xff, 0xc0}
	hugeMap := []byte{0x81, 0xa9, 'a', 'r', 'g', 'u', 'm', 'e', 'n', 't', 's', 0xdf, 0xff, 0xff, 0xff, 0xff}
	hugeString := []byte{0x93, 0x00, 0xdb, 0xff, 0xff, 0xff, 0xff, 'x'}
	for name, raw := range map[string][]byte{"deep": deep, "huge array": hugeArray, "huge map": hugeMap, "huge string": hugeString} {
		if err := checkGuestMsgpack(raw); !errors.Is(err, errMsgpack) {
			t.Errorf("%s: %v, want it refused", name, err)
		}
	}
	if _, _, err := DecodeReply(deep, &[]int32{}); !errors.Is(err, ErrReply) {
		t.Errorf("DecodeReply of a deeply nested reply: %v, want ErrReply", err)
	}

	for name, v := range map[string]any{
		"reply":      []any{0, "", []any{[]int32{0, 2, 0}, map[string]any{"k": []any{1.5, "x", true, nil, []byte{1, 2}}}}},
		"descriptor": abi.Descriptor{Name: "p", Hooks: []string{"session_open"}, Arguments: []abi.Argument{{Name: "w", Type: "int", Default: int64(-7)}}},
		"numbers":    []any{int64(-1 << 40), uint64(1 << 60), float32(1.5), 2.5, int8(-3), uint16(600)},
		"long":       bytes.Repeat([]byte("x"), 70000),
	} {
		raw, err := msgpack.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkGuestMsgpack(raw); err != nil {
			t.Errorf("%s: %v, want it accepted", name, err)
		}
	}
}
