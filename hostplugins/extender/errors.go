package extender

import (
	"fmt"
)

// Cause classifies a failed call, for the metrics and for the decision the
// plugin makes next.
type Cause string

const (
	// CauseTimeout: no complete answer within extender.httpTimeout
	// (waiting for a free request slot included).
	CauseTimeout Cause = "timeout"
	// CauseTransport: the request did not get through (refused connection,
	// reset, DNS failure).
	CauseTransport Cause = "transport"
	// CauseStatus: the extender answered with an HTTP status other than 200.
	CauseStatus Cause = "status"
	// CauseDecode: the answer was not the JSON the call expects, or too large.
	CauseDecode Cause = "decode"
	// CauseAnswer: the call succeeded but the extender reported an error in
	// its answer (prioritize's errorMessage, an event handler's
	// errorMessage). The extender is available, so extender.ignorable does
	// not apply, as in Volcano.
	CauseAnswer Cause = "answer"
)

// CallError is a failed call to the extender. Its message names the call,
// the URL, the HTTP status when there was one, and the cause.
type CallError struct {
	Call  Call
	URL   string
	Cause Cause
	// StatusCode is the HTTP status of the answer, 0 when none arrived.
	StatusCode int
	Err        error
}

func (e *CallError) Error() string {
	return fmt.Sprintf("extender %s: POST %s: %v", e.Call, e.URL, e.Err)
}

func (e *CallError) Unwrap() error { return e.Err }
