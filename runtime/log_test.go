package runtime

import (
	"strings"
	"testing"
	"time"
)

// A module that logs in a loop gets its burst, then its rate; the next line
// after a quiet spell says how many were dropped.
func TestGuestLogIsRateLimited(t *testing.T) {
	var got []string
	clock := time.Unix(0, 0)
	l := &logLimiter{out: func(_ int, msg string) { got = append(got, msg) }, tokens: logBurst, now: func() time.Time { return clock }}
	l.last = clock
	for i := 0; i < 1000; i++ {
		l.log(2, "hot loop")
	}
	if len(got) != logBurst {
		t.Fatalf("%d lines got through a burst of 1000, want %d", len(got), logBurst)
	}
	clock = clock.Add(time.Second)
	l.log(2, "after a second")
	if len(got) != logBurst+1 || !strings.Contains(got[logBurst], "900 earlier lines dropped") {
		t.Errorf("line after the quiet spell: %q", got[len(got)-1])
	}
	for i := 0; i < 100; i++ {
		l.log(2, "again")
	}
	if n := len(got) - logBurst - 1; n != logRate-1 {
		t.Errorf("%d lines in the next second, want %d", n, logRate-1)
	}
}
