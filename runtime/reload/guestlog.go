package reload

import (
	"strings"

	"k8s.io/klog/v2"
)

// GuestLog sends a module's log lines to klog, marked with the plugin's
// name: level 0 is an error, 1 a warning, 2 and above klog verbosity 0 and
// above.
func GuestLog(name string) func(int, string) {
	return func(level int, msg string) {
		msg = strings.TrimRight(msg, "\n")
		switch {
		case level <= 0:
			klog.ErrorS(nil, msg, "plugin", name)
		case level == 1:
			klog.InfoS("Warning: "+msg, "plugin", name)
		default:
			klog.V(klog.Level(level-2)).InfoS(msg, "plugin", name)
		}
	}
}
