//go:build tinygo

package caldera

import (
	"runtime"
	_ "unsafe" // for go:linkname
)

// TinyGo collects when an allocation finds no free block, stopping the
// module for the whole mark: at 5,000 nodes a collection of a module
// holding the session's view takes about a second, which is the default
// deadline of every call but session_open (10 s at least). A module
// that allocates during a session (an index of the pods, per-template
// states) would meet that collection in some call. finishCollection keeps
// enough free heap at the end of session_open for the session's calls: as
// much as the last session allocated between its open and its close,
// twice over, or a third of the heap before the first (TinyGo's own
// headroom after a collection). When the free heap is short, it collects
// there, and grows the heap when that frees too little.
//
// growHeap is TinyGo's own (memory.grow by the current size); should a
// TinyGo release stop the link, the build fails, it does not misbehave.
var heapUse struct {
	openEnd  uint64 // total allocated at the end of the last session_open
	session  uint64 // allocated between the last session's open and close
	measured bool   // a session has closed since the module started
}

func finishCollection(hook uint32) {
	if hook != hookSessionOpen && hook != hookSessionClose {
		return
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	if hook == hookSessionClose {
		heapUse.session, heapUse.measured = m.TotalAlloc-heapUse.openEnd, true
		return
	}
	want := 2 * heapUse.session
	if !heapUse.measured {
		want = m.HeapSys / 3
	}
	if m.HeapIdle < want {
		runtime.GC()
		runtime.ReadMemStats(&m)
		for m.HeapIdle < want && growHeap() {
			runtime.ReadMemStats(&m)
		}
	}
	heapUse.openEnd = m.TotalAlloc
}

//go:linkname growHeap runtime.growHeap
func growHeap() bool
