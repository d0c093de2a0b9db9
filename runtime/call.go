package runtime

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/scheduler/metrics"
)

// CallError is a failed call, naming the plugin, the hook and the cause.
type CallError struct {
	Plugin string
	Hook   abi.Hook
	Err    error
}

func (e *CallError) Error() string {
	return fmt.Sprintf("plugin %s, hook %s: %v", e.Plugin, e.Hook, e.Err)
}

func (e *CallError) Unwrap() error { return e.Err }

// Call sends one request to any idle instance of the module and decodes the
// result into out (nil to ignore it). A guest status other than OK is
// returned as code and message with a nil error; an error means the call
// itself failed, and the instance that served it is gone. Sessions use a
// Lease instead, so that every call of a session reaches the instance that
// holds its view.
func (p *Plugin) Call(ctx context.Context, hook abi.Hook, req abi.Request, out any) (abi.Code, string, error) {
	body, err := EncodeRequest(req)
	if err != nil {
		return p.count(hook, 0, "", fmt.Errorf("encoding the request: %w", err))
	}
	return p.CallEncoded(ctx, hook, body, out)
}

// CallEncoded is Call with the request already encoded as EncodeRequest
// would, for a hot path that encodes its requests without reflection.
func (p *Plugin) CallEncoded(ctx context.Context, hook abi.Hook, body []byte, out any) (abi.Code, string, error) {
	if _, ok := p.hooks[hook]; !ok {
		return p.count(hook, abi.UnknownHook, "", errUndeclared)
	}
	in, err := p.get(ctx)
	if err != nil {
		return p.count(hook, 0, "", err)
	}
	code, msg, err := p.send(ctx, in, hook, body, out)
	code, msg, err = p.count(hook, code, msg, err)
	if err == nil {
		p.put(in)
	}
	return code, msg, err
}

// count records a call in the metrics and wraps a failure with the plugin
// and hook. A reply with a status other than OK is a failure too, though
// the call itself worked: every hook answers its verdicts in its result,
// so the status says the module could not answer (an argument it refuses,
// a view it cannot apply), and the session fails safe on it.
func (p *Plugin) count(hook abi.Hook, code abi.Code, msg string, err error) (abi.Code, string, error) {
	if !p.unmetered.Load() {
		p.metricsFor(hook).calls.Inc()
	}
	p.calls.Add(1)
	switch {
	case err != nil:
		err = &CallError{Plugin: p.opts.Name, Hook: hook, Err: err}
		p.failed(hook, causeOf(err), err)
	case code != abi.OK:
		p.failed(hook, "status", &CallError{Plugin: p.opts.Name, Hook: hook, Err: &StatusError{Code: code, Message: msg}})
	}
	return code, msg, err
}

// failed records one failed call: in Failures, as the first failure if it
// is, and in the failure metric with its cause.
func (p *Plugin) failed(hook abi.Hook, cause string, err error) {
	p.failures.Add(1)
	p.firstFailure.CompareAndSwap(nil, &err)
	if !p.unmetered.Load() {
		metrics.PluginCallFailures.WithLabelValues(p.opts.Name, hook.String(), cause).Inc()
	}
}

// badReply records a reply the host cannot use although the call itself
// worked (as many scores or verdicts as nodes asked, say): a failed call
// with cause "reply", counted like one; it returns the error to report.
func (p *Plugin) badReply(hook abi.Hook, problem string) error {
	err := &CallError{Plugin: p.opts.Name, Hook: hook, Err: fmt.Errorf("%w: %s", ErrReply, problem)}
	p.failed(hook, "reply", err)
	return err
}

// StatusError is a reply whose status is not OK.
type StatusError struct {
	Code    abi.Code
	Message string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("answered status %d: %s", e.Code, e.Message)
}

// errUndeclared is a call of a hook the module did not declare; the host
// never sends one.
var errUndeclared = errors.New("the module does not declare this hook")

// send makes one call of a declared hook with an encoded request; on an
// error the instance has been closed.
func (p *Plugin) send(ctx context.Context, in *instance, hook abi.Hook, body []byte, out any) (abi.Code, string, error) {
	p.busy.Add(1)
	defer p.busy.Add(-1)
	m := p.hooks[hook]
	start := time.Now()
	defer func() {
		if !p.unmetered.Load() {
			m.seconds.Observe(time.Since(start).Seconds())
		}
	}()
	raw, err := in.request(ctx, p.timeoutFor(hook), body, uint32(hook), p.opts.Limits.MaxReplyBytes)
	if err != nil {
		err = p.blameMemory(in, err)
		// Never reuse an instance whose state is unknown.
		p.discard(in)
		return 0, "", err
	}
	if err := p.checkReplySize(raw); err != nil {
		p.discard(in)
		return 0, "", err
	}
	code, msg, err := DecodeReply(raw, out)
	if err != nil {
		p.discard(in)
		return 0, "", err
	}
	return code, msg, nil
}

// smallReply is the size under which a reply is decoded without counting
// its values first: it cannot hold more values than bytes.
const smallReply = 64 << 10

// checkReplySize refuses a reply of more values than maxValues allows
// before anything is decoded from it.
func (p *Plugin) checkReplySize(raw []byte) error {
	if len(raw) <= smallReply {
		return nil
	}
	if err := checkGuestMsgpackWithin(raw, p.maxValues()); err != nil {
		return fmt.Errorf("%w: %v", ErrReply, err)
	}
	return nil
}

// maxValues bounds the values of one reply: one per 32 bytes of the
// module's memory limit (2 Mi for the default 64 MiB), so that what the
// host allocates to decode a reply, some tens of bytes a value, stays of
// the order of the memory the module itself may use. The largest replies
// of a session, a verdict per node of 50,000 nodes or a key per task of
// 100,000 tasks, hold a few hundred thousand.
func (p *Plugin) maxValues() uint64 {
	limit := uint64(p.opts.Limits.MemoryLimitPages) * 65536
	if limit == 0 {
		limit = 4 << 30 // wasm32's whole address space
	}
	return max(limit/32, smallReply)
}

// DecodeReply decodes a guest's reply, [code, message, result], and the
// result into out (nil to ignore it) when the code is OK.
func DecodeReply(raw []byte, out any) (abi.Code, string, error) {
	// The answers a session asks for most are read by hand from an OK
	// reply; every failure (whose result the reflection decoder checks)
	// and any other answer falls through.
	if result, ok := okResult(raw); ok && decodeResult(result, out) {
		return abi.OK, "", nil
	}
	return decodeReplyReflect(raw, out)
}

// decodeReplyReflect is DecodeReply for every form msgpack allows.
func decodeReplyReflect(raw []byte, out any) (abi.Code, string, error) {
	var reply struct {
		_msgpack struct{} `msgpack:",as_array"`
		Code     abi.Code
		Message  string
		Result   msgpack.RawMessage
	}
	if err := checkGuestMsgpack(raw); err != nil {
		return 0, "", fmt.Errorf("%w: %v", ErrReply, err)
	}
	if err := msgpack.Unmarshal(raw, &reply); err != nil {
		return 0, "", fmt.Errorf("%w: %v", ErrReply, err)
	}
	if reply.Code != abi.OK {
		return reply.Code, reply.Message, nil
	}
	// A nil result decodes to an empty RawMessage: nothing to decode.
	if out != nil && len(reply.Result) > 0 {
		if err := msgpack.Unmarshal(reply.Result, out); err != nil {
			return 0, "", fmt.Errorf("%w: result: %v", ErrReply, err)
		}
	}
	return abi.OK, "", nil
}

// request copies the body into the guest's buffer and calls caldera_call,
// both under one deadline. The buffer is asked for only when the body
// outgrows the last one, and then for at least minBuffer bytes: most calls
// are one Wasm call, not two.
func (in *instance) request(ctx context.Context, timeout time.Duration, body []byte, hook, maxReply uint32) ([]byte, error) {
	ctx = in.watch(ctx, timeout)
	raw, err := in.requestWatched(ctx, body, hook, maxReply)
	if werr := in.unwatch(); werr != nil {
		return nil, werr
	}
	return raw, err
}

// minBuffer is the least buffer the host asks a guest for: room for the
// requests of the hooks that name a few objects. Those that list nodes
// outgrow it (5 bytes a node); the buffer then grows by half at least, so
// that requests a little larger than the last ask again only rarely.
const minBuffer = 4 << 10

func (in *instance) requestWatched(ctx context.Context, body []byte, hook, maxReply uint32) ([]byte, error) {
	if uint64(len(body)) > uint64(in.bufferSize) || in.buffer == 0 {
		size := max(uint32(len(body)), minBuffer, in.bufferSize+in.bufferSize/2)
		res, err := in.invoke(ctx, in.fn[abi.ExportBuffer], uint64(size))
		if err != nil {
			return nil, err
		}
		in.buffer, in.bufferSize = uint32(res), size
		if in.buffer == 0 {
			in.bufferSize = 0
			return nil, fmt.Errorf("%w: %s(%d) returned 0", ErrNoMem, abi.ExportBuffer, size)
		}
	}
	if !in.mem.Write(in.buffer, body) {
		return nil, fmt.Errorf("%w: %s returned [%d, %d), outside memory", ErrReply, abi.ExportBuffer, in.buffer, uint64(in.buffer)+uint64(len(body)))
	}
	return in.reply(ctx, in.fn[abi.ExportCall], maxReply, uint64(hook), uint64(len(body)))
}

func causeOf(err error) string {
	for _, c := range []struct {
		err  error
		name string
	}{{ErrTimeout, "timeout"}, {ErrNoMem, "memory"}, {ErrReply, "reply"}, {ErrTrap, "trap"}} {
		if errors.Is(err, c.err) {
			return c.name
		}
	}
	return "other"
}

// blameMemory reports a trap of an instance that has used most of its memory
// limit as ENOMEM: a guest whose allocation fails (memory.grow answers -1)
// aborts, and its runtime's abort is a trap like any other.
func (p *Plugin) blameMemory(in *instance, err error) error {
	limit := uint64(p.opts.Limits.MemoryLimitPages) * 65536
	if errors.Is(err, ErrTrap) && limit > 0 && uint64(in.mem.Size()) > limit/4*3 {
		return fmt.Errorf("%w: %d of %d bytes in use (%v)", ErrNoMem, in.mem.Size(), limit, err)
	}
	return err
}

// EncodeRequest encodes a request as the host sends it: msgpack with map
// keys in order, so that the same request is always the same bytes (the
// golden vectors in testdata/abi pin them).
func EncodeRequest(req abi.Request) ([]byte, error) { return encodeRequestInto(nil, req) }

// encodeRequestInto encodes the request into buf's array when its
// arguments are handles (by hand), else into a new one (by reflection: no
// second copy of a view).
func encodeRequestInto(buf []byte, req abi.Request) ([]byte, error) {
	if out, ok := appendRequest(buf[:0], req); ok {
		return out, nil
	}
	return encodeRequestReflect(req)
}

// encodeRequestReflect takes its own copy of the request to the heap, so
// that the hand-written path's does not escape.
func encodeRequestReflect(req abi.Request) ([]byte, error) { return marshalSorted(&req) }

// marshalSorted encodes v as the host encodes all it sends: msgpack with
// map keys in order.
func marshalSorted(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.SetSortMapKeys(true)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// hookMetrics are one hook's collectors, looked up once when the module is
// loaded: a call then costs no lookup by label values.
type hookMetrics struct {
	calls   prometheus.Counter
	seconds prometheus.Observer
}

func newHookMetrics(plugin string, hook abi.Hook) hookMetrics {
	return hookMetrics{
		calls:   metrics.PluginCalls.WithLabelValues(plugin, hook.String()),
		seconds: metrics.PluginCallDuration.WithLabelValues(plugin, hook.String()),
	}
}

// metricsFor returns a hook's collectors; a hook the module did not
// declare (a failed call) looks them up.
func (p *Plugin) metricsFor(hook abi.Hook) hookMetrics {
	if m, ok := p.hooks[hook]; ok {
		return m
	}
	return newHookMetrics(p.opts.Name, hook)
}
