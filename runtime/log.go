package runtime

import (
	"fmt"
	"sync"
	"time"
)

// Guest log lines are rate-limited per plugin: a module that logs in a hot
// hook (once per node, say) must not flood the scheduler's log or slow the
// session down. A plugin may log logBurst lines at once and logRate lines
// per second after that; what is dropped is counted and reported with the
// next line that gets through.
const (
	logRate  = 20
	logBurst = 100
)

type logLimiter struct {
	mu      sync.Mutex
	out     func(level int, msg string)
	tokens  float64
	last    time.Time
	dropped int
	now     func() time.Time
}

// rateLimited wraps a plugin's log function.
func rateLimited(out func(int, string)) func(int, string) {
	l := &logLimiter{out: out, tokens: logBurst, now: time.Now}
	l.last = l.now()
	return l.log
}

func (l *logLimiter) log(level int, msg string) {
	l.mu.Lock()
	now := l.now()
	l.tokens += now.Sub(l.last).Seconds() * logRate
	if l.tokens > logBurst {
		l.tokens = logBurst
	}
	l.last = now
	if l.tokens < 1 {
		l.dropped++
		l.mu.Unlock()
		return
	}
	l.tokens--
	dropped := l.dropped
	l.dropped = 0
	l.mu.Unlock()
	if dropped > 0 {
		msg = fmt.Sprintf("%s (%d earlier lines dropped by the log rate limit of %d lines/s)", msg, dropped, logRate)
	}
	l.out(level, msg)
}
