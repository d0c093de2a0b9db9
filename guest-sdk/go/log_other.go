//go:build !wasm

package caldera

import "os"

func hostLog(level int32, message string) {
	os.Stderr.WriteString("[caldera log " + itoa(level) + "] " + message + "\n")
}
