package caldera

import (
	"fmt"

	"github.com/tinylib/msgp/msgp"
)

// The ABI version this SDK implements.
const (
	abiMajor = 1
	abiMinor = 0
)

// SDKVersion is reported in the module's descriptor.
const SDKVersion = "caldera-go 0.1"

// Hook IDs of ABI 1.0 that this SDK serves.
const (
	hookSessionOpen    = 1
	hookSessionClose   = 2
	hookPredicateBatch = 8
	hookNodeOrderBatch = 9
)

// Reply codes that are not hook statuses.
const (
	codeUnknownHook  = 64
	codeDecodeFailed = 65
)

// host holds the module's state between calls: one session at a time.
type host struct {
	session *Session
	reply   []byte
	nodes   []*Node
	scores  []float64
	verdict []Verdict
}

var module host

// hooks lists the hooks the registered plugin implements, by ABI name.
func hooks(p Plugin) []string {
	out := []string{"session_open", "session_close"}
	if _, ok := p.(PredicateBatcher); ok {
		out = append(out, "predicate_batch")
	}
	if _, ok := p.(NodeOrderBatcher); ok {
		out = append(out, "node_order_batch")
	}
	return out
}

// describe encodes the module's Descriptor.
func describe() []byte {
	b := msgp.AppendMapHeader(nil, 4)
	b = msgp.AppendString(b, "name")
	name := ""
	if registered != nil {
		name = registered.Name()
	}
	b = msgp.AppendString(b, name)
	b = msgp.AppendString(b, "abi")
	b = msgp.AppendArrayHeader(b, 2)
	b = msgp.AppendInt(b, abiMajor)
	b = msgp.AppendInt(b, abiMinor)
	b = msgp.AppendString(b, "hooks")
	var hs []string
	if registered != nil {
		hs = hooks(registered)
	}
	b = msgp.AppendArrayHeader(b, uint32(len(hs)))
	for _, h := range hs {
		b = msgp.AppendString(b, h)
	}
	b = msgp.AppendString(b, "sdk")
	return msgp.AppendString(b, SDKVersion)
}

// dispatch serves one caldera_call and returns the encoded reply, which
// stays valid until the next call.
func (h *host) dispatch(hook uint32, req []byte) []byte {
	code, msg, result := h.serve(hook, req)
	b := msgp.AppendArrayHeader(h.reply[:0], 3)
	b = msgp.AppendInt32(b, code)
	b = msgp.AppendString(b, msg)
	if result == nil {
		b = msgp.AppendNil(b)
	} else {
		b = result(b)
	}
	h.reply = b
	return b
}

// serve decodes the envelope, applies events, and runs the hook. result
// appends the hook's result, or is nil.
func (h *host) serve(hook uint32, req []byte) (int32, string, func([]byte) []byte) {
	if registered == nil {
		return int32(Error), "no plugin registered: call caldera.Register in main", nil
	}
	var args []byte
	n, rest, err := msgp.ReadMapHeaderBytes(req)
	if err != nil {
		return codeDecodeFailed, err.Error(), nil
	}
	for i := uint32(0); i < n; i++ {
		var key []byte
		if key, rest, err = msgp.ReadMapKeyZC(rest); err != nil {
			return codeDecodeFailed, err.Error(), nil
		}
		switch string(key) {
		case "e":
			if rest, err = h.applyEvents(rest); err != nil {
				return codeDecodeFailed, err.Error(), nil
			}
		case "a":
			args = rest
			if rest, err = msgp.Skip(rest); err != nil {
				return codeDecodeFailed, err.Error(), nil
			}
		default:
			if rest, err = msgp.Skip(rest); err != nil {
				return codeDecodeFailed, err.Error(), nil
			}
		}
	}
	switch hook {
	case hookSessionOpen:
		return h.open(args)
	case hookSessionClose:
		if c, ok := registered.(SessionCloser); ok && h.session != nil {
			c.OnSessionClose(h.session)
		}
		h.session = nil
		return int32(Success), "", nil
	case hookPredicateBatch:
		return h.predicate(args)
	case hookNodeOrderBatch:
		return h.nodeOrder(args)
	}
	return codeUnknownHook, fmt.Sprintf("hook %d is not implemented by %s", hook, SDKVersion), nil
}

func (h *host) applyEvents(b []byte) ([]byte, error) {
	if msgp.IsNil(b) {
		return msgp.ReadNilBytes(b)
	}
	n, b, err := msgp.ReadArrayHeaderBytes(b)
	if err != nil {
		return b, err
	}
	for i := uint32(0); i < n; i++ {
		var sz uint32
		if sz, b, err = msgp.ReadArrayHeaderBytes(b); err != nil {
			return b, err
		}
		var ev [3]int32
		for j := uint32(0); j < sz; j++ {
			var v int32
			if v, b, err = msgp.ReadInt32Bytes(b); err != nil {
				return b, err
			}
			if j < 3 {
				ev[j] = v
			}
		}
		if h.session == nil {
			return b, fmt.Errorf("event before session_open")
		}
		if err := h.session.apply(ev[0], ev[1], ev[2]); err != nil {
			return b, err
		}
	}
	return b, nil
}

func (h *host) open(args []byte) (int32, string, func([]byte) []byte) {
	var oa OpenArgs
	if args != nil {
		if _, err := oa.UnmarshalMsg(args); err != nil {
			return codeDecodeFailed, "session_open: " + err.Error(), nil
		}
	}
	h.session = &Session{View: oa.View, Arguments: oa.Arguments}
	if o, ok := registered.(SessionOpener); ok {
		if err := o.OnSessionOpen(h.session); err != nil {
			return int32(Error), err.Error(), nil
		}
	}
	return int32(Success), "", nil
}

// batch decodes a task-on-nodes request into the task and node pointers.
func (h *host) batch(args []byte) (*Task, []*Node, error) {
	if h.session == nil {
		return nil, nil, fmt.Errorf("no session is open")
	}
	var ba BatchArgs
	if _, err := ba.UnmarshalMsg(args); err != nil {
		return nil, nil, err
	}
	v := &h.session.View
	if ba.Task < 0 || int(ba.Task) >= len(v.Tasks) {
		return nil, nil, fmt.Errorf("task handle %d of %d", ba.Task, len(v.Tasks))
	}
	h.nodes = h.nodes[:0]
	for _, n := range ba.Nodes {
		if n < 0 || int(n) >= len(v.Nodes) {
			return nil, nil, fmt.Errorf("node handle %d of %d", n, len(v.Nodes))
		}
		h.nodes = append(h.nodes, &v.Nodes[n])
	}
	return &v.Tasks[ba.Task], h.nodes, nil
}

func (h *host) nodeOrder(args []byte) (int32, string, func([]byte) []byte) {
	p, ok := registered.(NodeOrderBatcher)
	if !ok {
		return codeUnknownHook, "node_order_batch is not implemented", nil
	}
	task, nodes, err := h.batch(args)
	if err != nil {
		return codeDecodeFailed, "node_order_batch: " + err.Error(), nil
	}
	h.scores = resize(h.scores, len(nodes))
	if err := p.NodeOrderBatch(h.session, task, nodes, h.scores); err != nil {
		return int32(Error), err.Error(), nil
	}
	return int32(Success), "", func(b []byte) []byte {
		b = msgp.AppendArrayHeader(b, uint32(len(h.scores)))
		for _, s := range h.scores {
			b = msgp.AppendFloat64(b, s)
		}
		return b
	}
}

func (h *host) predicate(args []byte) (int32, string, func([]byte) []byte) {
	p, ok := registered.(PredicateBatcher)
	if !ok {
		return codeUnknownHook, "predicate_batch is not implemented", nil
	}
	task, nodes, err := h.batch(args)
	if err != nil {
		return codeDecodeFailed, "predicate_batch: " + err.Error(), nil
	}
	if cap(h.verdict) < len(nodes) {
		h.verdict = make([]Verdict, len(nodes))
	}
	h.verdict = h.verdict[:len(nodes)]
	clear(h.verdict)
	p.PredicateBatch(h.session, task, nodes, h.verdict)
	return int32(Success), "", func(b []byte) []byte {
		b = msgp.AppendArrayHeader(b, uint32(len(h.verdict)))
		for _, v := range h.verdict {
			b = msgp.AppendArrayHeader(b, 2)
			b = msgp.AppendInt32(b, int32(v.Code))
			b = msgp.AppendString(b, v.Reason)
		}
		return b
	}
}

func resize(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	s = s[:n]
	clear(s)
	return s
}
