package caldera

import (
	"encoding/binary"
	"errors"

	"github.com/caldera-scheduler/caldera/guest-sdk/go/internal/wire"
)

// The ABI major version this SDK implements; the minor is in version*.go,
// chosen by build tag.
const abiMajor = 1

// SDKVersion is reported in the module's descriptor.
const SDKVersion = "caldera-go 0.1"

// Hook IDs of ABI 1.0 (docs/abi.md, section 5).
const (
	hookSessionOpen          = 1
	hookSessionClose         = 2
	hookJobOrderKeys         = 3
	hookTaskOrderKeys        = 5
	hookQueueOrderKeys       = 6
	hookPrePredicate         = 7
	hookPredicateBatch       = 8
	hookNodeOrderBatch       = 9
	hookBestNode             = 10
	hookPreemptable          = 11
	hookReclaimable          = 12
	hookOverused             = 13
	hookAllocatable          = 14
	hookJobReady             = 15
	hookJobPipelined         = 16
	hookJobValid             = 17
	hookJobEnqueueable       = 18
	hookJobStarving          = 20
	hookVictimTasks          = 21
	hookPreemptive           = 22
	hookVictimQueueOrderKeys = 23
	hookTargetJob            = 24
	hookCacheEvent           = 25
	hookEvictable            = 26
	hookHyperNodeOrder       = 27
	hookHyperNodeGradient    = 28
	hookAllocate             = 29
)

// Reply codes that are not hook statuses.
const (
	codeUnknownHook  = 64
	codeDecodeFailed = 65
)

// host holds the module's state between calls: one session at a time.
type host struct {
	session *Session
	// last is the view of the previous session as it arrived, kept for a
	// delta; undo records what the open session's events change.
	last  *View
	spare spareLists
	undo  undoLog
	// placement is Allocate's, reused.
	placement Placement
	lists     taskLists
	reply     []byte
	// out holds a hook's encoded result before it is copied into reply.
	out    []byte
	args   Args
	nodes  []*Node
	tasks  []*Task
	jobs   []*Job
	queues []*Queue
	// hyperNodes holds a hypernode hook's candidates (ABI 1.9).
	hyperNodes []*HyperNode
	scores     []float64
	verdict    []Verdict
	// classes holds session_open's node-local classes (NodeLocalClasser),
	// empty when it sent none.
	classes []int32
	// rules is the last PredicateDomainRules' answer, its arrays reused.
	rules DomainRules
}

var module host

// describe encodes the module's Descriptor.
func describe() []byte {
	stable, local := false, false
	if k, ok := registered.(StableOrderKeys); ok {
		stable = k.OrderKeysStable()
	}
	if k, ok := registered.(LocalOrderKeys); ok {
		local = k.OrderKeysLocal()
	}
	nodeLocal := false
	if k, ok := registered.(NodeLocalPredicates); ok {
		nodeLocal = k.PredicatesNodeLocal()
	}
	claimChecks := false
	if k, ok := registered.(ClaimChecker); ok && abiMinor >= 10 {
		claimChecks = k.ClaimChecks()
	}
	var args []ArgumentSpec
	if d, ok := registered.(ArgumentDeclarer); ok {
		args = d.DeclaredArguments()
	}
	var kinds []string
	if d, ok := registered.(EventKindsDeclarer); ok && abiMinor >= 2 {
		kinds = d.EventKinds()
	}
	fields := uint32(7)
	if abiMinor >= 3 {
		fields++
	}
	if len(args) > 0 {
		fields++
	}
	if len(kinds) > 0 {
		fields++
	}
	if nodeLocal {
		fields++
	}
	if claimChecks {
		fields++
	}
	b := wire.AppendMapHeader(nil, fields)
	b = wire.AppendString(b, "name")
	name := ""
	if registered != nil {
		name = registered.Name()
	}
	b = wire.AppendString(b, name)
	b = wire.AppendString(b, "abi")
	b = wire.AppendArrayHeader(b, 2)
	b = wire.AppendInt(b, abiMajor)
	b = wire.AppendInt(b, abiMinor)
	b = wire.AppendString(b, "hooks")
	var hs []string
	if registered != nil {
		hs = declared(hookNames(impl))
	}
	b = wire.AppendArrayHeader(b, uint32(len(hs)))
	for _, h := range hs {
		b = wire.AppendString(b, h)
	}
	if len(args) > 0 {
		b = wire.AppendString(b, "arguments")
		b = appendArguments(b, args)
	}
	if len(kinds) > 0 {
		b = wire.AppendString(b, "eventKinds")
		b = wire.AppendArrayHeader(b, uint32(len(kinds)))
		for _, k := range kinds {
			b = wire.AppendString(b, k)
		}
	}
	b = wire.AppendString(b, "stableKeys")
	b = wire.AppendBool(b, stable)
	b = wire.AppendString(b, "localKeys")
	b = wire.AppendBool(b, local)
	b = wire.AppendString(b, "deltas")
	b = wire.AppendBool(b, abiMinor >= 1)
	if abiMinor >= 3 {
		b = wire.AppendString(b, "undoEvents")
		b = wire.AppendBool(b, true)
	}
	if nodeLocal {
		b = wire.AppendString(b, "nodeLocal")
		b = wire.AppendBool(b, true)
	}
	if claimChecks {
		b = wire.AppendString(b, "claimChecks")
		b = wire.AppendBool(b, true)
	}
	b = wire.AppendString(b, "sdk")
	return wire.AppendString(b, SDKVersion)
}

// appendArguments encodes the declared arguments as [{name, type, default}].
func appendArguments(b []byte, args []ArgumentSpec) []byte {
	b = wire.AppendArrayHeader(b, uint32(len(args)))
	for _, a := range args {
		b = wire.AppendMapHeader(b, 3)
		b = wire.AppendString(b, "name")
		b = wire.AppendString(b, a.Name)
		b = wire.AppendString(b, "type")
		b = wire.AppendString(b, a.Type)
		b = wire.AppendString(b, "default")
		// The types a declared default may have; any other is sent as nil.
		switch v := a.Default.(type) {
		case bool:
			b = wire.AppendBool(b, v)
		case int:
			b = wire.AppendInt(b, v)
		case int64:
			b = wire.AppendInt64(b, v)
		case float64:
			b = wire.AppendFloat64(b, v)
		case string:
			b = wire.AppendString(b, v)
		default:
			b = wire.AppendNil(b)
		}
	}
	return b
}

// dispatch serves one caldera_call and returns the encoded reply, which
// stays valid until the next call.
func (h *host) dispatch(hook uint32, req []byte) []byte {
	code, msg, result := h.serve(hook, req)
	b := wire.AppendArrayHeader(h.reply[:0], 3)
	b = wire.AppendInt32(b, code)
	b = wire.AppendString(b, msg)
	if result == nil {
		b = wire.AppendNil(b)
	} else {
		b = append(b, result...)
	}
	h.reply = b
	return b
}

// serve decodes the envelope, applies events, and runs the hook. The
// result is the hook's encoded answer, or nil.
func (h *host) serve(hook uint32, req []byte) (int32, string, []byte) {
	if registered == nil {
		return int32(Error), "no plugin registered: call caldera.Register in main", nil
	}
	if hook == hookSessionOpen || hook == hookSessionClose || hook == hookCacheEvent {
		// Whatever the call's outcome: a plugin skipped after a failed
		// call is never sent its session_close, and an event handler has
		// no sessions at all.
		defer finishCollection(hook)
	}
	var args []byte
	// A session hook's arguments are read where they lie: skipping them to
	// read them afterwards would walk every handle twice.
	sessionHook := hook != hookSessionOpen && hook != hookSessionClose && hook != hookCacheEvent
	if sessionHook {
		h.resetArgs()
	}
	n, rest, err := wire.ReadMapHeaderBytes(req)
	if err != nil {
		return codeDecodeFailed, err.Error(), nil
	}
	for i := uint32(0); i < n; i++ {
		var key []byte
		if key, rest, err = wire.ReadMapKeyZC(rest); err != nil {
			return codeDecodeFailed, err.Error(), nil
		}
		switch unsafeString(key) {
		case "e":
			if hook == hookSessionClose && !closeReadsView() {
				// No hook runs after these: applied, they would only be
				// undone, or, in a build that does not undo events
				// (caldera_abi_1_0, caldera_abi_1_2), resent by the host.
				if rest, err = wire.Skip(rest); err != nil {
					return codeDecodeFailed, err.Error(), nil
				}
				continue
			}
			if rest, err = h.applyEvents(rest); err != nil {
				return codeDecodeFailed, err.Error(), nil
			}
		case "a":
			if sessionHook {
				h.resetArgs() // a repeated key counts once, as it did for msgp
				if rest, err = readArgs(&h.args, rest); err != nil {
					return codeDecodeFailed, "decoding the request: " + err.Error(), nil
				}
				continue
			}
			args = rest
			if rest, err = wire.Skip(rest); err != nil {
				return codeDecodeFailed, err.Error(), nil
			}
		default:
			if rest, err = wire.Skip(rest); err != nil {
				return codeDecodeFailed, err.Error(), nil
			}
		}
	}
	switch hook {
	case hookSessionOpen:
		return h.open(args)
	case hookSessionClose:
		if err := h.readCloseArgs(args); err != nil {
			return codeDecodeFailed, "decoding session_close's arguments: " + err.Error(), nil
		}
		return h.close()
	case hookCacheEvent:
		// An event handler's hook: no session, no view.
		return h.cacheEvent(args)
	}
	if h.session == nil {
		return codeDecodeFailed, "no session is open", nil
	}
	if hook < uint32(len(served)) && served[hook] != nil {
		return served[hook](h)
	}
	return codeUnknownHook, "hook " + itoa(hook) + " is not implemented by " + SDKVersion, nil
}

// observe tells the plugin about an event the SDK has just applied.
func (h *host) observe(kind, handle int32) {
	s := h.session
	if kind == eventEnqueue {
		if o := impl.jobEnqueuedObserver; o != nil {
			o.JobEnqueued(s, &s.View.Jobs[handle])
		}
		return
	}
	o := impl.eventObserver
	if o == nil {
		return
	}
	switch kind {
	case eventAllocate, eventPipeline, eventUnevict:
		o.OnAllocate(s, &s.View.Tasks[handle])
	case eventDeallocate, eventEvict:
		o.OnDeallocate(s, &s.View.Tasks[handle])
	}
}

// closeReadsView says whether the events that come with session_close
// matter: only an OnSessionClose sees them. A session of 2,000 placements
// brings 4,000 events to the close of a plugin that no hook asked after
// the last placement.
func closeReadsView() bool {
	return impl.sessionCloser != nil
}

// close runs the author's OnSessionClose and returns the conditions it set.
// readCloseArgs reads session_close's arguments into the session: the fit
// errors of a 1.6 scheduler; none from an earlier one, nor to an SDK built
// as an earlier minor.
func (h *host) readCloseArgs(b []byte) error {
	s := h.session
	if s == nil || abiMinor < 6 || len(b) == 0 || wire.IsNil(b) {
		return nil
	}
	n, rest, err := wire.ReadMapHeaderBytes(b)
	if err != nil {
		return err
	}
	for i := uint32(0); i < n; i++ {
		var key []byte
		if key, rest, err = wire.ReadMapKeyZC(rest); err != nil {
			return err
		}
		if string(key) != "fitErrors" {
			if rest, err = wire.Skip(rest); err != nil {
				return err
			}
			continue
		}
		var count uint32
		if count, rest, err = wire.ReadArrayHeaderBytes(rest); err != nil {
			return err
		}
		s.fitErrors = make(map[int32]string, count)
		for j := uint32(0); j < count; j++ {
			var pair uint32
			if pair, rest, err = wire.ReadArrayHeaderBytes(rest); err != nil {
				return err
			}
			if pair != 2 {
				return errors.New("a fit error is [task, message], got an array of " + itoa(pair))
			}
			var task int32
			var msg string
			if task, rest, err = wire.ReadInt32Bytes(rest); err != nil {
				return err
			}
			if msg, rest, err = wire.ReadStringBytes(rest); err != nil {
				return err
			}
			if task < 0 || int(task) >= len(s.View.Tasks) {
				return handleError("fit error for task", task, len(s.View.Tasks))
			}
			s.fitErrors[task] = msg
		}
	}
	return nil
}

func (h *host) close() (int32, string, []byte) {
	s := h.session
	h.session = nil
	if s == nil {
		return okNone()
	}
	if c := impl.sessionCloser; c != nil {
		c.OnSessionClose(s)
	}
	// The view as it arrived, without what the session's events changed,
	// is the base of the next session's delta: a 1.3 host leaves out what
	// only events changed (an older one resends it all the same).
	if s.undo != nil {
		s.undo.restore(&s.View)
	}
	h.last = &s.View
	if len(s.conditions) == 0 {
		return okNone()
	}
	b := wire.AppendMapHeader(h.result(), 1)
	b = wire.AppendString(b, "conditions")
	b = wire.AppendArrayHeader(b, uint32(len(s.conditions)))
	for _, c := range s.conditions {
		b = wire.AppendMapHeader(b, 5)
		b = wire.AppendString(b, "job")
		b = wire.AppendInt32(b, c.job)
		b = wire.AppendString(b, "type")
		b = wire.AppendString(b, c.kind)
		b = wire.AppendString(b, "status")
		b = wire.AppendString(b, c.status)
		b = wire.AppendString(b, "reason")
		b = wire.AppendString(b, c.reason)
		b = wire.AppendString(b, "message")
		b = wire.AppendString(b, c.message)
	}
	return h.ok(b)
}

func (h *host) applyEvents(b []byte) ([]byte, error) {
	if wire.IsNil(b) {
		return wire.ReadNilBytes(b)
	}
	n, b, err := wire.ReadArrayHeaderBytes(b)
	if err != nil {
		return b, err
	}
	for i := uint32(0); i < n; i++ {
		ev, rest, ok := readEvent(b)
		if ok {
			b = rest
		} else if ev, b, err = readEventSlowly(b); err != nil {
			return b, err
		}
		if h.session == nil {
			return b, errors.New("event before session_open")
		}
		if err := h.session.apply(ev[0], ev[1], ev[2]); err != nil {
			return b, err
		}
		h.observe(ev[0], ev[1])
	}
	return b, nil
}

// readEvent reads an event in the form the scheduler writes it, an array
// of three ints each a fixint or an int32 (a handle), without a call per
// field; ok is false for any other form, which readEventSlowly reads.
func readEvent(b []byte) (ev [3]int32, rest []byte, ok bool) {
	if len(b) < 4 || b[0] != 0x93 {
		return ev, b, false
	}
	b = b[1:]
	for j := range ev {
		if len(b) == 0 {
			return ev, b, false
		}
		switch c := b[0]; {
		case c < 0x80 || c >= 0xe0: // positive or negative fixint
			ev[j], b = int32(int8(c)), b[1:]
		case c == 0xd2 && len(b) >= 5:
			ev[j], b = int32(binary.BigEndian.Uint32(b[1:])), b[5:]
		default:
			return ev, b, false
		}
	}
	return ev, b, true
}

// readEventSlowly reads an event in any integer encoding; fields after
// the third, from a newer host, are skipped.
func readEventSlowly(b []byte) (ev [3]int32, rest []byte, err error) {
	var sz uint32
	if sz, b, err = wire.ReadArrayHeaderBytes(b); err != nil {
		return ev, b, err
	}
	for j := uint32(0); j < sz; j++ {
		var v int32
		if v, b, err = wire.ReadInt32Bytes(b); err != nil {
			return ev, b, err
		}
		if j < 3 {
			ev[j] = v
		}
	}
	return ev, b, nil
}

func (h *host) open(args []byte) (int32, string, []byte) {
	h.session = nil
	if args != nil {
		s, isDelta, err := h.openDelta(args)
		if err != nil {
			return codeDecodeFailed, "session_open: " + err.Error(), nil
		}
		if isDelta {
			h.session = s
		}
	}
	h.last = nil
	if h.session == nil {
		var oa OpenArgs
		if args != nil {
			if _, err := oa.UnmarshalMsg(args); err != nil {
				return codeDecodeFailed, "session_open: " + err.Error(), nil
			}
		}
		h.session = &Session{View: oa.View, Arguments: oa.Arguments, hostABI: oa.ABI}
	}
	if abiMinor >= 3 {
		h.undo.reset(&h.session.View)
		h.session.undo = &h.undo
	}
	h.session.index(&h.lists)
	if err := h.session.View.checkClaimHandles(); err != nil {
		return codeDecodeFailed, "session_open: " + err.Error(), nil
	}
	if o := impl.sessionOpener; o != nil {
		if err := o.OnSessionOpen(h.session); err != nil {
			return int32(Error), err.Error(), nil
		}
	}
	return h.promises()
}

// promises answers session_open with what the plugin promises for this
// session (abi.OpenResult), or nil when it promises nothing.
func (h *host) promises() (int32, string, []byte) {
	sc, pp, nl := impl.nodeLocalScorer, impl.shapeLocalPrePred, impl.sessionNodeLocal
	scores := sc != nil && sc.ScoresNodeLocal(h.session)
	ruleless := scores && abiMinor >= 5 && h.session.HostABIMinor() >= 5 &&
		impl.rulelessScorer != nil && impl.rulelessScorer.ScoresReadNoRules(h.session)
	pre := pp != nil && pp.PrePredicatesByShape(h.session)
	withdrawn := abiMinor >= 4 && nl != nil && !nl.PredicatesNodeLocalIn(h.session)
	classes := withdrawn && impl.nodeLocalClasser != nil && declaresNodeLocal()
	h.classes = h.classes[:0]
	if classes {
		h.classes = resize(h.classes, len(h.session.View.Tasks))
		for i := range h.classes {
			h.classes[i] = -1
		}
		impl.nodeLocalClasser.PredicatesNodeLocalClasses(h.session, h.classes)
	}
	n := uint32(0)
	for _, on := range [...]bool{scores, ruleless, pre, withdrawn, classes} {
		if on {
			n++
		}
	}
	if n == 0 {
		return okNone()
	}
	b := wire.AppendMapHeader(h.result(), n)
	if scores {
		b = wire.AppendBool(wire.AppendString(b, "nodeLocalScores"), true)
	}
	if ruleless {
		b = wire.AppendBool(wire.AppendString(b, "scoreShapeWithoutRules"), true)
	}
	if pre {
		b = wire.AppendBool(wire.AppendString(b, "prePredicateByShape"), true)
	}
	if withdrawn {
		b = wire.AppendBool(wire.AppendString(b, "nodeLocalWithdrawn"), true)
	}
	if classes {
		b = wire.AppendArrayHeader(wire.AppendString(b, "nodeLocalClasses"), uint32(len(h.classes)))
		for _, c := range h.classes {
			b = wire.AppendInt32(b, c)
		}
	}
	return h.ok(b)
}

// declaresNodeLocal reports whether the module's descriptor says
// nodeLocal, which node-local classes refine.
func declaresNodeLocal() bool {
	nl, ok := registered.(NodeLocalPredicates)
	return ok && nl.PredicatesNodeLocal()
}

// resize returns s with length n and every element zero, reusing its
// array when it is large enough. The array is cleared beyond n as well: a
// smaller session must not keep the previous one's objects alive.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	clear(s[:cap(s)])
	return s[:n]
}
