// Package logonce logs a warning about an object once: plugins and sessions
// are made anew each session and read the same objects in every one, and
// a malformed annotation would otherwise be logged every second.
package logonce

import (
	"sync"

	"k8s.io/klog/v2"
)

// maxSeen bounds the record of warnings given; past it the record starts
// over and a warning may be given again.
const maxSeen = 10000

var warned struct {
	sync.Mutex
	seen map[string]bool
}

// Warning logs plugin: msg the first time it is asked to.
func Warning(plugin, msg string) {
	warned.Lock()
	defer warned.Unlock()
	key := plugin + ": " + msg
	if warned.seen[key] {
		return
	}
	if warned.seen == nil || len(warned.seen) >= maxSeen {
		warned.seen = map[string]bool{}
	}
	warned.seen[key] = true
	klog.Warning(key)
}
