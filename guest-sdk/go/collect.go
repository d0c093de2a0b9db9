//go:build wasip1 && !tinygo

package caldera

import _ "unsafe" // for go:linkname

// finishCollection lets a garbage collection under way finish before the
// SDK answers.
//
// Every export runs on the goroutine that called into the module, and the
// SDK's hooks do not block, so the collector's mark workers, which run only
// when a goroutine blocks, hardly ever ran: a collection advanced through
// the assists of the calls that allocated, its mark phase lasted for many
// calls, and what they allocated meanwhile all survived it. The heap then
// grew until it hit the plugin's memory limit: the predicates and nodeorder
// ports at 1,000 nodes ran out of 64 MiB three times in 1,500 sessions, and
// a module keeping 8 MiB live while dropping 64 KiB a call ran out between
// sessions 50 and 75.
//
// Turning the collector off waits for the mark under way (the goroutine
// blocks, so the workers run); turning it back on restores the author's
// setting. With no collection under way each is a lock and a re-pacing of
// the collector. The SDK does it at the end of every session_open,
// session_close and cache_event call, not per hook call.
//
// setGCPercent is the runtime's own implementation of
// runtime/debug.SetGCPercent, which the runtime exports under that name;
// importing runtime/debug instead would add 383 KB to every module. Should a
// Go release stop the link, the build fails, it does not misbehave.
func finishCollection(uint32) { setGCPercent(setGCPercent(-1)) }

//go:linkname setGCPercent runtime/debug.setGCPercent
func setGCPercent(int32) int32
