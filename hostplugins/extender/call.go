package extender

import (
	"k8s.io/klog/v2"
)

// outcome is how a call ended, which decides the hook's answer.
type outcome int

const (
	// answered: the answer was decoded into the call's result.
	answered outcome = iota
	// absent: the extender sits this session out (a required extender
	// whose onSessionOpen failed, as in Volcano, or an ignorable one with
	// extender.failFast after a failure); the hook answers as if the
	// extender were not configured, and it is not asked.
	absent
	// failedIgnorable: an ignorable extender's call failed; the hook gives
	// Volcano's answer for that call on an ignorable failure.
	failedIgnorable
	// failedRequired: a required extender's call failed, or with
	// extender.failClosed its onSessionOpen did; the hook gives Volcano's
	// answer for that call on a required failure.
	failedRequired
)

// ask makes one call, building its body only when the call is made. The
// error accompanies failedRequired and failedIgnorable, and the absent of
// an extender.failFast extender whose call just failed.
func (p *Plugin) ask(call Call, body func(*encoder) any, out any) (outcome, error) {
	if p.absent.Load() {
		return absent, nil
	}
	if p.openErr != nil {
		return failedRequired, p.openErr
	}
	err := p.ep.post(call, p.cfg.Verbs[call], body(newEncoder()), out)
	if err == nil {
		return answered, nil
	}
	return p.failed(call, err), err
}

// failed logs a failed call and says what it means for the hook: with
// extender.failFast, an ignorable extender leaves the session there and then.
func (p *Plugin) failed(call Call, err error) outcome {
	p.warn(call, err)
	switch {
	case !p.cfg.Ignorable:
		return failedRequired
	case p.cfg.FailFast:
		p.leave(call)
		return absent
	}
	return failedIgnorable
}

// leave makes the extender sit out the rest of the session.
func (p *Plugin) leave(call Call) {
	if !p.absent.Swap(true) {
		klog.InfoS("Extender takes no further part in the session", "call", call,
			"ignorable", p.cfg.Ignorable, "session", p.sessionUID())
	}
}

// answerError reports an error the extender put in an answer.
func (p *Plugin) answerError(call Call, msg string) error {
	err := &CallError{Call: call, URL: p.cfg.URLPrefix + "/" + p.cfg.Verbs[call], Cause: CauseAnswer, Err: answerErr(msg)}
	countFailure(call, err)
	p.warn(call, err)
	return err
}

type answerErr string

func (e answerErr) Error() string {
	if e == "" {
		return "the extender's answer holds no result and no error message"
	}
	return "the extender answered with an error: " + string(e)
}

func (p *Plugin) warn(call Call, err error) {
	p.mu.Lock()
	first := !p.logged[call]
	p.logged[call] = true
	p.lastErr = err
	p.mu.Unlock()
	if first {
		klog.ErrorS(err, "Extender call failed", "ignorable", p.cfg.Ignorable, "session", p.sessionUID())
		return
	}
	klog.V(4).ErrorS(err, "Extender call failed", "ignorable", p.cfg.Ignorable, "session", p.sessionUID())
}

func (p *Plugin) sessionUID() string {
	if p.ssn == nil {
		return ""
	}
	return string(p.ssn.UID)
}
