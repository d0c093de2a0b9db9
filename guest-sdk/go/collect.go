//go:build wasm && !tinygo

package caldera

import _ "unsafe" // for go:linkname

// finishCollection lets a garbage collection under way finish before the
// SDK answers.
//
// Every export runs on the goroutine that called into the module, and the
// SDK's hooks never block, so the collector's mark workers, which run only
// when a goroutine yields, never ran: a collection advanced only through
// the assists of the calls that allocated, its mark phase lasted for many
// calls, and what they allocated meanwhile all survived it. The heap then
// grew until it hit the plugin's memory limit: a predicates port at 1,000
// nodes ran out of 64 MiB three times in 1,500 sessions, and a module
// keeping 8 MiB live while dropping 64 KiB a call ran out within 60.
//
// Turning the collector off waits for the mark under way (the goroutine
// blocks, so the workers run); turning it back on restores the author's
// setting. With no collection under way both are a few field writes. The
// SDK does it at the end of a session and of an event batch, not per call.
func finishCollection() { setGCPercent(setGCPercent(-1)) }

//go:linkname setGCPercent runtime/debug.setGCPercent
func setGCPercent(int32) int32
