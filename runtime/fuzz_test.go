package runtime

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vmihailenco/msgpack/v5"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/scheduler/cache"
)

// goldenReplies seeds a fuzz target with the ABI's golden replies
// (testdata/abi/reply_*.msgpack); the corpus of testdata/fuzz adds what
// fuzzing found.
func goldenReplies(f *testing.F) {
	paths, err := filepath.Glob(filepath.Join("..", "testdata", "abi", "reply_*.msgpack"))
	if err != nil || len(paths) == 0 {
		f.Fatalf("golden replies: %v (%d found)", err, len(paths))
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// maxFuzzValues is the value budget of a module of 64 MiB, as a call has.
const maxFuzzValues = 64 << 20 / 32

// Every answer a session decodes, from any bytes a guest may send: the
// decoders must fail with an error, never panic, and a reply within the
// value budget never costs more than the budget allows.
func FuzzDecodeReply(f *testing.F) {
	goldenReplies(f)
	f.Add([]byte{0x93, 0x00, 0xa0, 0xdd, 0xff, 0xff, 0xff, 0xff}) // a count far over the bytes
	f.Fuzz(func(t *testing.T, raw []byte) {
		if checkGuestMsgpackWithin(raw, maxFuzzValues) != nil {
			return
		}
		outs := []any{new([]abi.Key), new([]abi.Verdict), new([]float64), new(bool), new(int32),
			new(abi.ValidateResult), new(abi.Victims), new([]int32), new([]abi.CacheEventResult), new(abi.OpenResult)}
		for _, out := range outs {
			_, _, _ = DecodeReply(raw, out)
		}
	})
}

// The descriptor a module returns from caldera_describe.
func FuzzDescriptor(f *testing.F) {
	good, _ := msgpack.Marshal(map[string]any{"name": "p", "abi": []int{1, 6}, "hooks": []string{"session_open", "predicate_batch"}, "deltas": true})
	f.Add(good)
	f.Add([]byte{0xdf, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, raw []byte) {
		if checkGuestMsgpackWithin(raw, maxFuzzValues) != nil {
			return
		}
		var d abi.Descriptor
		_ = msgpack.Unmarshal(raw, &d)
	})
}

// An event handler's verdicts, decoded and applied to a node and a pod:
// an adjustment the host cannot apply is an error, never a panic.
func FuzzEventVerdict(f *testing.F) {
	goldenReplies(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		if checkGuestMsgpackWithin(raw, maxFuzzValues) != nil {
			return
		}
		var res []abi.CacheEventResult
		if _, _, err := DecodeReply(raw, &res); err != nil {
			return
		}
		node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}}
		pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}}
		h := &EventHandler{}
		for i := range res {
			for _, ev := range []cache.Event{{Type: cache.Added, Kind: "Node", New: node}, {Type: cache.Updated, Kind: "Pod", Old: pod, New: pod}} {
				out, action, err := h.apply(ev, &res[i])
				if err == nil && action == "" {
					t.Fatalf("verdict %+v applied with no action", res[i])
				}
				if err != nil && !strings.Contains(err.Error(), "EREPLY") {
					t.Fatalf("verdict %+v: error %v is not EREPLY", res[i], err)
				}
				_ = out
			}
		}
	})
}
