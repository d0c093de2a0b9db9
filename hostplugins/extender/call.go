package extender

import (
	"k8s.io/klog/v2"
)

// outcome is how a decision call ended.
type outcome int

const (
	// answered: the answer was decoded into the call's result.
	answered outcome = iota
	// skipped: the extender sits out (ignorable, and this or an earlier
	// call failed); the hook answers as if the extender were not configured.
	skipped
	// failedClosed: the extender is required and could not decide; the
	// hook gives the answer that lets nothing through.
	failedClosed
)

// ask makes one decision call, building its body only when the call is
// made. The error accompanies failedClosed (and, for the log, skipped).
func (p *Plugin) ask(call Call, body func(*encoder) any, out any) (outcome, error) {
	if p.skipped.Load() {
		return skipped, nil
	}
	if p.openErr != nil {
		return failedClosed, p.openErr
	}
	err := p.ep.post(call, p.cfg.Verbs[call], body(newEncoder()), out)
	if err == nil {
		return answered, nil
	}
	p.warn(call, err)
	if p.cfg.Ignorable {
		if !p.skipped.Swap(true) {
			klog.InfoS("Extender is ignorable: it sits out the rest of the session", "call", call, "session", p.sessionUID())
		}
		return skipped, err
	}
	return failedClosed, err
}

// notify makes a call whose answer decides nothing (jobEnqueued) or can only
// be reported (the event handlers); a skipped or failed-open extender is
// not told.
func (p *Plugin) notify(call Call, body func(*encoder) any, out any) error {
	if p.skipped.Load() || p.openErr != nil {
		return nil
	}
	err := p.ep.post(call, p.cfg.Verbs[call], body(newEncoder()), out)
	if err != nil {
		p.warn(call, err)
	}
	return err
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
