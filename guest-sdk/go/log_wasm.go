//go:build wasm

package caldera

import "unsafe"

//go:wasmimport caldera log
func calderaLog(level int32, ptr unsafe.Pointer, size int32)

func hostLog(level int32, message string) {
	calderaLog(level, unsafe.Pointer(unsafe.StringData(message)), int32(len(message)))
}
