package runtime

import (
	"strings"
	"testing"
	"time"
)

func testLimiter(got *[]string, clock *time.Time) *logLimiter {
	l := newLogLimiter(func(_ int, msg string) { *got = append(*got, msg) })
	l.now = func() time.Time { return *clock }
	l.last = *clock
	return l
}

// A module that logs in a loop gets its burst, then its rate; the next line
// after a quiet spell says how many were dropped.
func TestGuestLogIsRateLimited(t *testing.T) {
	var got []string
	clock := time.Unix(0, 0)
	l := testLimiter(&got, &clock)
	for i := 0; i < 1000; i++ {
		l.log(2, "hot loop")
	}
	if len(got) != logBurst {
		t.Fatalf("%d lines got through a burst of 1000, want %d", len(got), logBurst)
	}
	clock = clock.Add(time.Second)
	l.log(2, "after a second")
	if len(got) != logBurst+1 || !strings.Contains(got[logBurst], "900 earlier lines, 7200 bytes, dropped") {
		t.Errorf("line after the quiet spell: %q", got[len(got)-1])
	}
	for i := 0; i < 100; i++ {
		l.log(2, "again")
	}
	if n := len(got) - logBurst - 1; n != logRate-1 {
		t.Errorf("%d lines in the next second, want %d", n, logRate-1)
	}
}

// A module that hands the host its whole memory as one line, again and
// again, gets maxLogLine bytes a line, with a marker, and logByteBurst bytes
// in all at once: what it wrote (2,000 lines of 64 MiB) never reaches the
// log, nor is it copied.
func TestGuestLogIsLimitedInBytes(t *testing.T) {
	var got []string
	clock := time.Unix(0, 0)
	l := testLimiter(&got, &clock)
	memory := make([]byte, 64<<20)
	for i := range memory {
		memory[i] = 'x'
	}
	for i := 0; i < 2000; i++ {
		l.guest(1, memory)
	}
	total := 0
	for _, line := range got {
		total += len(line)
	}
	if want := logByteBurst / maxLogLine; len(got) != want {
		t.Errorf("%d lines got through, want %d (the byte burst over the line limit)", len(got), want)
	}
	if total > logByteBurst+len(got)*200 {
		t.Errorf("%d bytes logged, want at most the burst of %d and the markers", total, logByteBurst)
	}
	if !strings.HasSuffix(got[0], "[67104768 more bytes cut: guest log lines are limited to 4096 bytes]") {
		t.Errorf("first line ends %q, want the cut marker", got[0][len(got[0])-80:])
	}
	clock = clock.Add(time.Second)
	l.guest(1, []byte("short"))
	if last := got[len(got)-1]; !strings.HasPrefix(last, "short (1984 earlier lines, 8126464 bytes, dropped") {
		t.Errorf("line after a second: %q", last)
	}
}

// A cut never splits a character.
func TestGuestLogCutKeepsUTF8(t *testing.T) {
	var got []string
	clock := time.Unix(0, 0)
	l := testLimiter(&got, &clock)
	l.guest(1, []byte("x"+strings.Repeat("é", maxLogLine)))
	line, _, _ := strings.Cut(got[0], " [")
	if !strings.HasSuffix(line, "é") || len(line) != maxLogLine-1 {
		t.Errorf("cut line of %d bytes ends %q", len(line), line[len(line)-4:])
	}
}
