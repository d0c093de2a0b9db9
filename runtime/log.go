package runtime

import (
	"fmt"
	"sync"
	"time"
	"unicode/utf8"
)

// Guest log lines are limited per plugin, in lines and in bytes: a module
// that logs in a hot hook (once per node, say), or hands the host its whole
// memory as one line, must not flood the scheduler's log, fill its disk or
// hold up the session. A plugin may log logBurst lines and logByteBurst
// bytes at once, and logRate lines and logByteRate bytes per second after
// that; a line longer than maxLogLine is cut, with a marker saying how much
// was cut, before anything is copied out of the guest's memory. What is
// dropped is counted and reported with the next line that gets through.
const (
	logRate      = 20
	logBurst     = 100
	logByteRate  = 16 << 10
	logByteBurst = 64 << 10
	maxLogLine   = 4 << 10
)

type logLimiter struct {
	mu           sync.Mutex
	out          func(level int, msg string)
	lines, bytes float64 // tokens
	last         time.Time
	dropped      int
	droppedBytes int
	now          func() time.Time
}

func newLogLimiter(out func(int, string)) *logLimiter {
	l := &logLimiter{out: out, lines: logBurst, bytes: logByteBurst, now: time.Now}
	l.last = l.now()
	return l
}

// log passes a line of the host's own about the plugin, under the same
// limits as the guest's.
func (l *logLimiter) log(level int, msg string) { l.guest(level, []byte(msg)) }

// guest passes a line the guest wrote, b being a view of its memory: at
// most maxLogLine bytes of it are copied, and only when the line gets
// through.
func (l *logLimiter) guest(level int, b []byte) {
	n := len(b)
	if n > maxLogLine {
		n = maxLogLine
		for n > maxLogLine-utf8.UTFMax && !utf8.RuneStart(b[n]) {
			n--
		}
	}
	dropped, droppedBytes, ok := l.admit(n)
	if !ok {
		return
	}
	msg := string(b[:n])
	if n < len(b) {
		msg += fmt.Sprintf(" [%d more bytes cut: guest log lines are limited to %d bytes]", len(b)-n, maxLogLine)
	}
	if dropped > 0 {
		msg += fmt.Sprintf(" (%d earlier lines, %d bytes, dropped by the log limit of %d lines and %d bytes per second)", dropped, droppedBytes, logRate, logByteRate)
	}
	l.out(level, msg)
}

// admit takes a line's tokens; when it may pass it returns, and resets,
// what was dropped before it.
func (l *logLimiter) admit(n int) (dropped, droppedBytes int, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	elapsed := now.Sub(l.last).Seconds()
	l.last = now
	l.lines = min(l.lines+elapsed*logRate, logBurst)
	l.bytes = min(l.bytes+elapsed*logByteRate, logByteBurst)
	if l.lines < 1 || l.bytes < float64(n) {
		l.dropped++
		l.droppedBytes += n
		return 0, 0, false
	}
	l.lines--
	l.bytes -= float64(n)
	dropped, droppedBytes = l.dropped, l.droppedBytes
	l.dropped, l.droppedBytes = 0, 0
	return dropped, droppedBytes, true
}
