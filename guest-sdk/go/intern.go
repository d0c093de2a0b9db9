package caldera

import (
	"unsafe"

	"github.com/caldera-scheduler/caldera/guest-sdk/go/internal/wire"
)

// A view repeats the same short strings thousands of times: namespaces,
// statuses, label and annotation keys, a gang's group name on each of its
// pods, queue names. Under TinyGo each decoded string is an allocation,
// and an allocation in a heap fragmented by an earlier view costs
// microseconds (the allocator walks its free ranges). The decoder
// therefore looks each short string up in a small table of recent
// strings, by content, and shares the copy it finds. (The measured gain
// of session_open came from unsafeString below; this table's own effect
// has not been measured on a view with many repeated strings.)
const (
	internSlots  = 4096
	internMaxLen = 64
)

var internTable [internSlots]string

// readString decodes a msgpack string like wire.ReadStringBytes, sharing
// repeated short strings; view_gen.go calls it (see the go:generate line
// in view.go).
func readString(b []byte) (string, []byte, error) {
	raw, rest, err := wire.ReadStringZC(b)
	if err != nil {
		return "", b, err
	}
	return intern(raw), rest, nil
}

func intern(raw []byte) string {
	if len(raw) == 0 {
		return ""
	}
	if len(raw) > internMaxLen {
		return string(raw)
	}
	// FNV-1a over the bytes picks the slot.
	h := uint32(2166136261)
	for _, c := range raw {
		h ^= uint32(c)
		h *= 16777619
	}
	slot := &internTable[h%internSlots]
	if *slot == unsafeString(raw) {
		return *slot
	}
	s := string(raw)
	*slot = s
	return s
}

// unsafeString views b as a string without copying, for the generated
// decoders' comparisons of field names. msgp's own UnsafeString copies
// under TinyGo (which builds with the purego tag): one allocation per field
// of every object, 59,000 of the 66,000 allocations of a 1,000-node
// session_open.
func unsafeString(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}
