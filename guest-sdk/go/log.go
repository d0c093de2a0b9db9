package caldera

// Level says how important a log message is.
type Level int32

// The levels of Log; LevelDebug gives klog verbosities 3 to 9.
const (
	LevelError   Level = 0
	LevelWarning Level = 1
	LevelInfo    Level = 2
)

// LevelDebug is the debug level logged at klog verbosity v (3 to 9).
func LevelDebug(v int) Level {
	return Level(min(max(v, 3), 9))
}

// Log writes one message to the scheduler's log with the plugin's name
// (the caldera.log import, docs/abi.md section 4): a line, not bytes that
// stdout would split at each write. Outside Wasm, in a plugin's unit
// tests, it writes to stderr. A module that never calls Log does not
// import caldera.log.
func Log(level Level, message string) { hostLog(int32(level), message) }
