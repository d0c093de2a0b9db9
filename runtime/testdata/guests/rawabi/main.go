// Command rawabi is a test module that speaks the ABI by hand, without an
// SDK, so that the runtime's tests control every byte: it implements
// predicate_batch honestly and misbehaves on purpose in other hooks.
//
// Built by the runtime tests with the standard Go toolchain:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared
//
// -ldflags "-X main.abiMajor=2" builds a module of a future major version;
// -ldflags "-X main.hooks=session_open" one that declares only the hooks
// listed (comma-separated); -X main.misbehave=MODE one that attacks the
// host's limits in every call (misbehave.go).
package main

import (
	"bytes"
	"strconv"
	"strings"
	"unsafe"

	"github.com/vmihailenco/msgpack/v5"
)

var abiMajor = "1"

var hooks = "predicate_batch,job_ready,overused,allocatable,job_starving,job_valid,from_the_future"

// short, when set (-X main.short=1), makes predicate_batch answer, as
// [code, reason] verdicts as a session's adapter reads them, one verdict
// fewer than the nodes it was asked about.
var short = ""

// forgetful, when set (-X main.forgetful=1), declares deltas and then
// cannot apply one: a session_open carrying a delta is answered EDECODE,
// as from a guest that lost its earlier view; a whole view is accepted.
var forgetful = ""

// allocate, when set (-X main.allocate=MODE), answers allocate (hook 29):
// "refuse-odd" refuses tasks of odd handles and names the node of the
// others in example.com/node (with the clock it was told in
// example.com/now); "scheduler-key" tries to rewrite the PodGroup
// annotation.
var allocate = ""

func main() {}

//go:wasmexport caldera_abi_version
func abiVersion() uint32 {
	major, _ := strconv.Atoi(abiMajor)
	return uint32(major)<<16 | 0
}

var input []byte

//go:wasmexport caldera_buffer
func buffer(size uint32) unsafe.Pointer {
	if uint32(cap(input)) < size {
		input = make([]byte, size)
	}
	input = input[:size]
	if size == 0 {
		return nil
	}
	return unsafe.Pointer(&input[0])
}

var output []byte

func pack(b []byte) uint64 {
	output = b
	if len(b) == 0 {
		return 0
	}
	return uint64(uintptr(unsafe.Pointer(&output[0])))<<32 | uint64(len(output))
}

//go:wasmexport caldera_describe
func describe() uint64 {
	b, _ := msgpack.Marshal(map[string]any{
		"name":   "rawabi",
		"abi":    []int{1, 0},
		"hooks":  strings.Split(hooks, ","),
		"sdk":    "none",
		"deltas": forgetful != "",
	})
	return pack(b)
}

type predicateArgs struct {
	Task  int32   `msgpack:"task"`
	Nodes []int32 `msgpack:"nodes"`
}

var hoard [][]byte

//go:wasmexport caldera_call
func call(hook, n uint32) uint64 {
	if misbehave != "" {
		return attack(hook)
	}
	switch hook {
	case 1: // session_open, when declared: nothing kept.
		if forgetful != "" && bytes.Contains(input[:n], []byte("delta")) {
			return reply(65, "holds no earlier view", nil)
		}
		return reply(0, "", nil)
	case 2: // session_close
		return reply(0, "", nil)
	case 8: // predicate_batch: odd nodes pass, even nodes are unschedulable.
		var req struct {
			A predicateArgs `msgpack:"a"`
		}
		if err := msgpack.Unmarshal(input[:n], &req); err != nil {
			return reply(65, err.Error(), nil)
		}
		codes := make([]int32, len(req.A.Nodes))
		for i, node := range req.A.Nodes {
			if node%2 == 0 {
				codes[i] = 2
			}
		}
		if short != "" && len(codes) > 0 {
			verdicts := make([][]any, len(codes)-1)
			for i := range verdicts {
				verdicts[i] = []any{codes[i], ""}
			}
			return reply(0, "", verdicts)
		}
		return reply(0, "", codes)
	case 29: // allocate
		var req struct {
			E [][3]int32 `msgpack:"e"`
			A struct {
				Task int32 `msgpack:"task"`
				Now  int64 `msgpack:"now"`
			} `msgpack:"a"`
		}
		if err := msgpack.Unmarshal(input[:n], &req); err != nil || len(req.E) == 0 {
			return reply(65, "no placement event", nil)
		}
		last := req.E[len(req.E)-1]
		switch {
		case allocate == "scheduler-key":
			return reply(0, "", map[string]any{"annotations": map[string]any{"scheduling.k8s.io/group-name": "other"}})
		case req.A.Task%2 == 1:
			return reply(0, "", map[string]any{"refusal": "odd tasks go nowhere"})
		}
		return reply(0, "", map[string]any{"annotations": map[string]any{
			"example.com/node": strconv.Itoa(int(last[2])), "example.com/now": strconv.FormatInt(req.A.Now, 10)}})
	case 15: // job_ready: traps.
		panic("job_ready exploded")
	case 13: // overused: never returns.
		for {
		}
	case 14: // allocatable: grows memory without bound.
		for {
			hoard = append(hoard, make([]byte, 8<<20))
		}
	case 20: // job_starving: points its reply outside memory.
		return uint64(0xFFFF0000)<<32 | 0x1000
	case 17: // job_valid: replies with bytes that are not msgpack.
		return pack([]byte{0xc1, 0xc1, 0xc1})
	}
	return reply(64, "unknown hook "+strconv.Itoa(int(hook)), nil)
}

func reply(code int, msg string, result any) uint64 {
	b, _ := msgpack.Marshal([]any{code, msg, result})
	return pack(b)
}
