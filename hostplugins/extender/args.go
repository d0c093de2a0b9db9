package extender

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Name is the plugin's name in the scheduler configuration.
const Name = "extender"

// Call names one of the extender's endpoints. Its string is the Volcano name
// of the call: the argument that sets its verb is "extender." + name + "Verb",
// and the same string labels the metrics and starts every error message.
type Call int

// The calls, Volcano's first, then Caldera's additions.
const (
	OnSessionOpen Call = iota
	OnSessionClose
	Predicate
	Prioritize
	Preemptable
	Reclaimable
	QueueOverused
	JobEnqueueable
	JobEnqueued
	JobReady
	AllocateFunc
	DeallocateFunc
	// BatchPredicate is Caldera's: one request carries the task and every
	// node of the session, and the answer holds a verdict per node.
	BatchPredicate
	numCalls
)

var callNames = [numCalls]string{
	"onSessionOpen", "onSessionClose", "predicate", "prioritize", "preemptable",
	"reclaimable", "queueOverused", "jobEnqueueable", "jobEnqueued", "jobReady",
	"allocateFunc", "deallocateFunc", "batchPredicate",
}

func (c Call) String() string {
	if c >= 0 && c < numCalls {
		return callNames[c]
	}
	return fmt.Sprintf("Call(%d)", int(c))
}

// VerbKey returns the argument that sets the call's verb.
func (c Call) VerbKey() string { return "extender." + c.String() + "Verb" }

// Argument keys other than the verbs. The first four are Volcano's.
const (
	URLPrefixKey        = "extender.urlPrefix"
	HTTPTimeoutKey      = "extender.httpTimeout"
	IgnorableKey        = "extender.ignorable"
	ManagedResourcesKey = "extender.managedResources"
	// MaxConcurrentRequestsKey is Caldera's: at most this many requests are
	// in flight to the extender at once, across the sessions sharing its
	// client.
	MaxConcurrentRequestsKey = "extender.maxConcurrentRequests"
	// FailFastKey is Caldera's: an ignorable extender's first failed call
	// takes it out of the rest of the session.
	FailFastKey = "extender.failFast"
	// FailClosedKey is Caldera's: a required extender that cannot answer
	// lets nothing through, where Volcano lets some of it through.
	FailClosedKey = "extender.failClosed"
)

// Defaults. The timeout is Volcano's; the concurrency limit is ours.
const (
	DefaultHTTPTimeout           = time.Second
	DefaultMaxConcurrentRequests = 16
)

// Config is the plugin's parsed arguments.
type Config struct {
	// URLPrefix has no trailing slash; a call goes to URLPrefix + "/" + verb.
	URLPrefix   string
	HTTPTimeout time.Duration
	// Verbs holds each call's verb; an empty verb leaves the call out.
	Verbs     [numCalls]string
	Ignorable bool
	// ManagedResources, when not empty, limits the task-level calls
	// (predicate, prioritize, preemptable, reclaimable, allocateFunc,
	// deallocateFunc) to tasks whose containers request or limit one of
	// these resources.
	ManagedResources      map[string]bool
	MaxConcurrentRequests int
	// FailFast (only with Ignorable): the first failed call makes the
	// extender sit out the rest of the session, every hook answering as
	// if it were not configured. Volcano asks it again on every call.
	FailFast bool
	// FailClosed (only without Ignorable): a failed jobReady says "not
	// ready" and a failed onSessionOpen fails every decision of the
	// session closed. Volcano says "ready", and leaves the extender out of
	// the session after a failed open.
	FailClosed bool
}

// Verb returns the call's configured verb, empty when the call is off.
func (c *Config) Verb(call Call) string { return c.Verbs[call] }

// ParseConfig reads the arguments. Where Volcano silently ignores a value of
// the wrong type or an unparsable timeout, this returns an error naming the
// key, and it rejects unknown "extender." keys, so that a misspelt verb does
// not quietly leave a hook out.
func ParseConfig(args framework.Arguments) (Config, error) {
	cfg := Config{HTTPTimeout: DefaultHTTPTimeout, MaxConcurrentRequests: DefaultMaxConcurrentRequests}
	known := []string{URLPrefixKey, HTTPTimeoutKey, IgnorableKey, ManagedResourcesKey, MaxConcurrentRequestsKey, FailFastKey, FailClosedKey}
	for c := Call(0); c < numCalls; c++ {
		known = append(known, c.VerbKey())
		if err := args.String(c.VerbKey(), &cfg.Verbs[c]); err != nil {
			return cfg, err
		}
		cfg.Verbs[c] = strings.TrimSpace(cfg.Verbs[c])
	}
	if err := rejectUnknown(args, known); err != nil {
		return cfg, err
	}
	if err := args.String(URLPrefixKey, &cfg.URLPrefix); err != nil {
		return cfg, err
	}
	cfg.URLPrefix = strings.TrimRight(strings.TrimSpace(cfg.URLPrefix), "/")
	if err := args.Duration(HTTPTimeoutKey, &cfg.HTTPTimeout); err != nil {
		return cfg, err
	}
	if cfg.HTTPTimeout <= 0 {
		return cfg, fmt.Errorf("argument %q: expected a positive duration, got %v", HTTPTimeoutKey, cfg.HTTPTimeout)
	}
	if err := args.Bool(IgnorableKey, &cfg.Ignorable); err != nil {
		return cfg, err
	}
	if err := args.Bool(FailFastKey, &cfg.FailFast); err != nil {
		return cfg, err
	}
	if err := args.Bool(FailClosedKey, &cfg.FailClosed); err != nil {
		return cfg, err
	}
	if cfg.FailFast && !cfg.Ignorable {
		return cfg, fmt.Errorf("argument %q: only an ignorable extender can be taken out of a session; set %q to true, or drop %q",
			FailFastKey, IgnorableKey, FailFastKey)
	}
	if cfg.FailClosed && cfg.Ignorable {
		return cfg, fmt.Errorf("argument %q: an ignorable extender does not fail closed; set %q to false, or drop %q",
			FailClosedKey, IgnorableKey, FailClosedKey)
	}
	if err := args.Int(MaxConcurrentRequestsKey, &cfg.MaxConcurrentRequests); err != nil {
		return cfg, err
	}
	if cfg.MaxConcurrentRequests < 1 {
		return cfg, fmt.Errorf("argument %q: expected at least 1, got %d", MaxConcurrentRequestsKey, cfg.MaxConcurrentRequests)
	}
	managed, err := stringList(args, ManagedResourcesKey)
	if err != nil {
		return cfg, err
	}
	if len(managed) > 0 {
		cfg.ManagedResources = make(map[string]bool, len(managed))
		for _, r := range managed {
			cfg.ManagedResources[r] = true
		}
	}
	if cfg.Verbs[Predicate] != "" && cfg.Verbs[BatchPredicate] != "" {
		return cfg, fmt.Errorf("arguments %q and %q: set one of them, not both (the batch verb asks about every node at once)",
			Predicate.VerbKey(), BatchPredicate.VerbKey())
	}
	if cfg.anyVerb() {
		if err := checkURLPrefix(cfg.URLPrefix); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

func (c *Config) anyVerb() bool {
	for _, v := range c.Verbs {
		if v != "" {
			return true
		}
	}
	return false
}

// checkURLPrefix refuses at load time what would fail every call later.
func checkURLPrefix(prefix string) error {
	if prefix == "" {
		return fmt.Errorf("argument %q: expected the extender's address such as http://127.0.0.1:8713, since verbs are set", URLPrefixKey)
	}
	u, err := url.Parse(prefix)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("argument %q: expected an http:// or https:// address with a host, got %q", URLPrefixKey, prefix)
	}
	return nil
}

// rejectUnknown refuses keys in the plugin's namespace that it does not
// read; keys outside it are left alone, as Volcano leaves them.
func rejectUnknown(args framework.Arguments, known []string) error {
	set := make(map[string]bool, len(known))
	for _, k := range known {
		set[k] = true
	}
	var unknown []string
	for k := range args {
		if strings.HasPrefix(k, "extender.") && !set[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	sort.Strings(known)
	return fmt.Errorf("unknown arguments %q: expected some of %q", unknown, known)
}

// stringList reads a YAML list of strings, as Volcano does, or a
// comma-separated string.
func stringList(args framework.Arguments, key string) ([]string, error) {
	v, ok := args[key]
	if !ok || v == nil {
		return nil, nil
	}
	var raw []string
	switch x := v.(type) {
	case string:
		raw = strings.Split(x, ",")
	case []string:
		raw = x
	case []any:
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("argument %q: expected a list of resource names, got %T %v in it", key, e, e)
			}
			raw = append(raw, s)
		}
	default:
		return nil, fmt.Errorf("argument %q: expected a list of resource names, got %T %v", key, v, v)
	}
	var out []string
	for _, s := range raw {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out, nil
}
