//go:build wasm

package caldera

import "unsafe"

// input is the buffer the host writes requests into (docs/abi.md, section 3).
var input []byte

//go:wasmexport caldera_abi_version
func exportABIVersion() uint32 { return abiMajor<<16 | abiMinor }

//go:wasmexport caldera_buffer
func exportBuffer(size uint32) unsafe.Pointer {
	if uint32(cap(input)) < size {
		input = make([]byte, size)
	}
	input = input[:size]
	if size == 0 {
		return nil
	}
	return unsafe.Pointer(&input[0])
}

var described []byte

//go:wasmexport caldera_describe
func exportDescribe() uint64 {
	described = describe()
	return pack(described)
}

//go:wasmexport caldera_call
func exportCall(hook, n uint32) uint64 {
	if n > uint32(len(input)) {
		n = uint32(len(input))
	}
	return pack(module.dispatch(hook, input[:n]))
}

// pack returns ptr<<32 | len of a reply that stays alive in a package
// variable until the next call.
func pack(b []byte) uint64 {
	if len(b) == 0 {
		return 0
	}
	return uint64(uintptr(unsafe.Pointer(&b[0])))<<32 | uint64(len(b))
}
