//go:build !wasip1 && !tinygo

package caldera

// finishCollection has nothing to do here: TinyGo collects while it
// allocates, stopping the module, and a native build's collector has
// threads of its own.
func finishCollection(uint32) {}
