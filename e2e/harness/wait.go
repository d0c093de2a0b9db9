package harness

import (
	"testing"
	"time"
)

// pollInterval is how often Eventually and Consistently look.
const pollInterval = 200 * time.Millisecond

// Eventually polls cond until it reports true, failing the test with cond's
// last message when timeout passes. The message says what was seen, for
// example "2 of 3 pods bound".
func Eventually(t testing.TB, timeout time.Duration, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, msg := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %s: %s", timeout, msg)
		}
		time.Sleep(pollInterval)
	}
}

// Consistently polls cond for the whole duration and fails the test as soon
// as it reports false.
func Consistently(t testing.TB, duration time.Duration, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(duration)
	for {
		if ok, msg := cond(); !ok {
			t.Fatalf("condition broken: %s", msg)
		}
		if time.Now().After(deadline) {
			return
		}
		time.Sleep(pollInterval)
	}
}
