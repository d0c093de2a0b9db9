package runtime

import (
	"context"
	"fmt"

	"github.com/caldera-scheduler/caldera/abi"
)

// Lease pins one instance to one session: the guest keeps the session's
// view in its memory, so every call of the session must reach the same
// instance. A failed call destroys the instance; the lease then reports
// Lost until the holder reopens the session on a fresh one.
type Lease struct {
	p    *Plugin
	in   *instance
	lost bool
	// body is the last request's encoding, its array reused by the next.
	body []byte
}

// Lease takes an instance from the pool (or makes one) for a session.
func (p *Plugin) Lease(ctx context.Context) (*Lease, error) {
	in, err := p.get(ctx)
	if err != nil {
		_, _, err = p.count(abi.HookSessionOpen, 0, "", err)
		return nil, err
	}
	return &Lease{p: p, in: in}, nil
}

// instance returns the leased instance, taking a fresh one when the last
// was destroyed.
func (l *Lease) instance(ctx context.Context) (*instance, error) {
	if l.in == nil {
		in, err := l.p.get(ctx)
		if err != nil {
			return nil, err
		}
		l.in = in
	}
	return l.in, nil
}

// held is what the leased instance's guest holds of earlier sessions, or
// nil.
func (l *Lease) held() *heldView {
	if l == nil || l.in == nil {
		return nil
	}
	return l.in.held
}

// Call makes one call on the leased instance. After a failed call the
// instance is gone and Lost reports true; a hook the module does not
// declare, or a request that cannot be encoded, fails before any call.
func (l *Lease) Call(ctx context.Context, hook abi.Hook, req abi.Request, out any) (abi.Code, string, error) {
	// Checked before an instance is taken: a failure here leaves the
	// instance as it was.
	if _, ok := l.p.hooks[hook]; !ok {
		return l.p.count(hook, abi.UnknownHook, "", errUndeclared)
	}
	body, err := encodeRequestInto(l.body, req)
	if err != nil {
		return l.p.count(hook, 0, "", fmt.Errorf("encoding the request: %w", err))
	}
	if cap(body) <= maxKeptBody {
		l.body = body
	}
	in, err := l.instance(ctx)
	if err != nil {
		return l.p.count(hook, 0, "", err)
	}
	code, msg, err := l.p.send(ctx, in, hook, body, out)
	code, msg, err = l.p.count(hook, code, msg, err)
	if err != nil {
		l.in = nil
		l.lost = true
	}
	return code, msg, err
}

// maxKeptBody bounds the request array a lease keeps for its next call:
// the hooks' requests are small, a session_open's view is not.
const maxKeptBody = 64 << 10

// Lost reports whether the instance holding the session's view was
// destroyed since the last Renew; the next Call runs on a fresh instance,
// which knows nothing of the session until it is opened again.
func (l *Lease) Lost() bool { return l.lost }

// Discard closes the leased instance after a reply the host could not
// use: its state is unknown, as after a failed call, and the next call
// reopens the session on a fresh one.
func (l *Lease) Discard() {
	if l.in != nil {
		l.p.discard(l.in)
		l.in = nil
	}
	l.lost = true
}

// Renew clears Lost, once the holder has reopened the session.
func (l *Lease) Renew() { l.lost = false }

// Release returns the instance to the pool; the lease is then unusable.
func (l *Lease) Release() {
	if l.in != nil {
		l.p.put(l.in)
		l.in = nil
	}
	l.lost = false
}
