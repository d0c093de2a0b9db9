package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	goruntime "runtime"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/klog/v2"

	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/internal/configfile"
	"github.com/caldera-scheduler/caldera/scheduler/cache"
	"github.com/caldera-scheduler/caldera/scheduler/metrics"
)

// Failure policies of an event handler module.
const (
	// FailureIgnore records an event whose handler failed as it came.
	FailureIgnore = "Ignore"
	// FailureFail keeps it out of the cache, as a drop does.
	FailureFail = "Fail"
)

// HandlerConfig is the handler section of --event-handler-config for a
// Wasm event handler.
type HandlerConfig struct {
	// FailurePolicy is Ignore (the default) or Fail.
	FailurePolicy string `json:"failurePolicy,omitempty"`
	// Arguments are sent with every cache_event call.
	Arguments map[string]any `json:"arguments,omitempty"`
	// CallTimeout bounds one call ("1s" when unset); "0s" turns the
	// deadline off: for trusted modules only, since the events of a shard
	// whose call never returns then never reach the cache, and queue up
	// without bound behind it (the informers themselves go on).
	CallTimeout string `json:"callTimeout,omitempty"`
}

// Limits are the module's limits under this configuration.
func (c HandlerConfig) Limits() (Limits, error) {
	l := DefaultLimits()
	if c.CallTimeout == "" {
		return l, nil
	}
	d, err := time.ParseDuration(c.CallTimeout)
	if err != nil || d < 0 {
		return l, fmt.Errorf("handler.callTimeout: %q is not a duration such as \"500ms\" or \"0s\"", c.CallTimeout)
	}
	l.CallTimeout = d
	return l, nil
}

// ParseHandlerConfig reads the handler section, refusing unknown fields.
func ParseHandlerConfig(raw json.RawMessage) (HandlerConfig, error) {
	cfg := HandlerConfig{FailurePolicy: FailureIgnore}
	if _, err := configfile.Section(raw, &cfg); err != nil {
		return cfg, fmt.Errorf("handler: %w", err)
	}
	if _, err := cfg.Limits(); err != nil {
		return cfg, err
	}
	switch cfg.FailurePolicy {
	case "":
		cfg.FailurePolicy = FailureIgnore
	case FailureIgnore, FailureFail:
	default:
		return cfg, fmt.Errorf("handler.failurePolicy: expected %s or %s, got %q", FailureIgnore, FailureFail, cfg.FailurePolicy)
	}
	return cfg, nil
}

// maxEventBatch bounds the events of one cache_event call.
const maxEventBatch = 512

// EventHandler is a Wasm module as the cache's event handler. Events of
// the kinds the module wants are queued and sent in batches (one call
// has a fixed cost that a batch pays once); what the module answers goes
// to next. Events of other kinds go to next at once. The queue is split
// into shards by object, each drained by its own goroutine on its own
// instance while it is not empty: a burst (a large cluster's initial
// lists) keeps as many cores busy as there are shards, and each object's
// events still reach next in the order they came.
type EventHandler struct {
	plugin *Plugin
	name   string
	cfg    HandlerConfig
	next   cache.EventHandler
	kinds  map[string]bool // nil: every kind
	shards []*eventShard
	seed   maphash.Seed
	// arguments are cfg.Arguments encoded once, for every call.
	arguments []byte

	mu       sync.Mutex
	lastWarn map[string]time.Time
	// breaker pauses the calls of a module that keeps failing.
	breaker breaker
}

// The cache waits for the handler's queue before the first session.
var _ cache.QueueingEventHandler = (*EventHandler)(nil)

// eventShard is one queue of events and the goroutine draining it.
type eventShard struct {
	h        *EventHandler
	mu       sync.Mutex
	queue    []cache.Event
	draining bool
	// body is the request buffer, reused from one batch to the next (only
	// the draining goroutine uses it).
	body []byte
}

// eventShards is how many shards a handler has: one per core, up to four
// (each shard may hold an instance, up to the module's memory limit).
func eventShards() int { return max(1, min(goruntime.GOMAXPROCS(0), 4)) }

// NewEventHandler wraps next with the module's verdicts. The module must
// declare cache_event.
func NewEventHandler(p *Plugin, name string, cfg HandlerConfig, next cache.EventHandler) (*EventHandler, error) {
	if !p.Implements(abi.HookCacheEvent) {
		return nil, fmt.Errorf("module %s does not declare the hook cache_event: it is not an event handler (it declares %s)", name, strings.Join(p.Descriptor().Hooks, ", "))
	}
	h := &EventHandler{plugin: p, name: name, cfg: cfg, next: next, seed: maphash.MakeSeed(), lastWarn: map[string]time.Time{},
		breaker: breaker{now: time.Now}}
	if len(cfg.Arguments) > 0 {
		var err error
		if h.arguments, err = encodeArguments(cfg.Arguments); err != nil {
			return nil, fmt.Errorf("event handler %s: encoding its arguments: %w", name, err)
		}
	}
	for range eventShards() {
		h.shards = append(h.shards, &eventShard{h: h})
	}
	if kinds := p.Descriptor().EventKinds; len(kinds) > 0 {
		h.kinds = map[string]bool{}
		for _, k := range kinds {
			h.kinds[k] = true
		}
	}
	return h, nil
}

// Handle queues the event for the module, or passes on one of a kind the
// module does not want.
func (h *EventHandler) Handle(ev cache.Event) {
	if h.kinds != nil && !h.kinds[ev.Kind] {
		h.next.Handle(ev)
		return
	}
	shard := h.shards[0]
	if len(h.shards) > 1 {
		shard = h.shards[h.shardKey(ev)%uint64(len(h.shards))]
	}
	shard.mu.Lock()
	shard.queue = append(shard.queue, ev)
	start := !shard.draining
	shard.draining = true
	shard.mu.Unlock()
	if start {
		go shard.drain()
	}
}

// shardKey hashes the event's object (namespace and name; objects of
// different kinds may share a shard) without building a string: it runs for
// every event.
func (h *EventHandler) shardKey(ev cache.Event) uint64 {
	obj := ev.New
	if obj == nil {
		obj = ev.Old
	}
	var mh maphash.Hash
	mh.SetSeed(h.seed)
	if m, err := meta.Accessor(obj); err == nil {
		mh.WriteString(m.GetNamespace())
		mh.WriteByte('/')
		mh.WriteString(m.GetName())
	}
	return mh.Sum64()
}

// HasSynced reports whether every event queued so far has been handled;
// the cache waits for it before the first session.
func (h *EventHandler) HasSynced() bool {
	for _, s := range h.shards {
		s.mu.Lock()
		draining := s.draining
		s.mu.Unlock()
		if draining {
			return false
		}
	}
	return true
}

// drain sends the shard's queue in batches until it is empty.
func (s *eventShard) drain() {
	for {
		s.mu.Lock()
		n := min(len(s.queue), maxEventBatch)
		if n == 0 {
			s.draining = false
			s.queue = nil
			s.mu.Unlock()
			return
		}
		// Later appends go past the end of queue and never reach
		// the batch's events: no copy needed.
		batch := s.queue[:n:n]
		s.queue = s.queue[n:]
		s.mu.Unlock()
		s.handleBatch(batch)
	}
}

// handleBatch asks the module about a batch and hands each event on as
// its verdict says. A batch whose call fails quickly (a trap, exhausted
// memory, a bad reply) is asked again in halves, down to single events: one
// event the module cannot take, or a batch too large for its memory, must
// not cost the others their verdicts (under failurePolicy Fail, their
// place in the cache until their object changes again). A call that missed
// its deadline is not split: every retry would cost the deadline again.
func (s *eventShard) handleBatch(batch []cache.Event) {
	h := s.h
	if err := h.breaker.paused(); err != nil {
		for _, ev := range batch {
			h.fail(ev, err)
		}
		return
	}
	verdicts, err := h.ask(batch, &s.body)
	h.breaker.record(err == nil)
	if err != nil && len(batch) > 1 && !errors.Is(err, ErrTimeout) && !h.breaker.open() {
		half := len(batch) / 2
		s.handleBatch(batch[:half:half])
		s.handleBatch(batch[half:])
		return
	}
	if err != nil {
		for _, ev := range batch {
			h.fail(ev, err)
		}
		return
	}
	for i, ev := range batch {
		out, action, err := h.apply(ev, &verdicts[i])
		if err != nil {
			h.fail(ev, err)
			continue
		}
		metrics.EventHandlerActions.WithLabelValues(h.name, ev.Kind, action).Inc()
		if action == abi.ActionDrop {
			cache.DropEvent(h.next, ev)
			continue
		}
		h.next.Handle(out)
	}
}

// ask makes one call for a batch and returns a verdict per event; body is
// the buffer to encode the request in.
func (h *EventHandler) ask(batch []cache.Event, body *[]byte) ([]abi.CacheEventResult, error) {
	events := make([]abi.CacheEvent, len(batch))
	for i, ev := range batch {
		e := abi.CacheEvent{Type: ev.Type.String(), Kind: ev.Kind}
		if ev.Old != nil {
			e.Old = compact(ev.Old)
		}
		if ev.New != nil {
			e.New = compact(ev.New)
		}
		events[i] = e
	}
	*body = appendCacheEventRequest((*body)[:0], events, h.arguments)
	var res []abi.CacheEventResult
	code, msg, err := h.plugin.CallEncoded(context.Background(), abi.HookCacheEvent, *body, &res)
	if err != nil {
		return nil, err
	}
	if code != abi.OK {
		return nil, fmt.Errorf("the module answered status %d: %s", code, msg)
	}
	if len(res) != len(batch) {
		return nil, fmt.Errorf("%w: %d verdicts for %d events", ErrReply, len(res), len(batch))
	}
	return res, nil
}

// apply returns the event to record and the action taken.
func (h *EventHandler) apply(ev cache.Event, res *abi.CacheEventResult) (cache.Event, string, error) {
	switch res.Action {
	case "", abi.ActionPass:
		return ev, abi.ActionPass, nil
	case abi.ActionDrop:
		if ev.Type == cache.Deleted {
			return ev, abi.ActionPass, nil // deletes always go through
		}
		return ev, abi.ActionDrop, nil
	case abi.ActionAdjust:
		if ev.Type == cache.Deleted {
			return ev, abi.ActionPass, nil
		}
		adjusted, err := adjust(ev.Kind, ev.New, res)
		if err != nil {
			return ev, "", fmt.Errorf("%w: %v", ErrReply, err)
		}
		ev.New = adjusted
		return ev, abi.ActionAdjust, nil
	default:
		return ev, "", fmt.Errorf("%w: unknown action %q (pass, drop or adjust)", ErrReply, res.Action)
	}
}

// fail applies the failure policy, logs (once a minute per kind) and
// counts.
func (h *EventHandler) fail(ev cache.Event, err error) {
	fallback := "default"
	if h.cfg.FailurePolicy == FailureFail {
		fallback = "drop"
	}
	metrics.EventHandlerFailures.WithLabelValues(h.name, ev.Kind, fallback).Inc()
	h.mu.Lock()
	now := time.Now()
	warn := now.Sub(h.lastWarn[ev.Kind]) >= time.Minute
	if warn {
		h.lastWarn[ev.Kind] = now
	}
	h.mu.Unlock()
	if warn {
		klog.ErrorS(err, "Event handler failed; its failure policy decides (logged once a minute per kind)",
			"handler", h.name, "kind", ev.Kind, "event", ev.Type.String(), "object", objectName(ev), "failurePolicy", h.cfg.FailurePolicy)
	}
	if fallback == "drop" {
		cache.DropEvent(h.next, ev)
		return
	}
	h.next.Handle(ev)
}
