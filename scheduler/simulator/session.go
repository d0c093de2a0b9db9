package simulator

import (
	"context"
	"maps"

	"github.com/caldera-scheduler/caldera/scheduler"
	"github.com/caldera-scheduler/caldera/scheduler/cache"
)

// SessionResult is what one session of a run did: its own binds and
// evictions, and the PodGroups and pending pods as they stand after it. Its
// JSON form, one object per line, is the contract of
// `caldera simulate --watch --output json`: Result's keys (cycles counts the
// sessions so far) plus session and plugins.
type SessionResult struct {
	Result
	// Session numbers the session from 1.
	Session int `json:"session"`
	// Plugins maps each plugin of the session whose code can be swapped
	// (a Wasm module) to the version that served it (its sha256).
	Plugins map[string]string `json:"plugins"`
	// Policy is what the session ran with; it may already be retired.
	Policy *scheduler.Policy `json:"-"`
}

// takeSession returns the binds and evictions made since its last call.
func (r *recorder) takeSession() (map[string]string, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	binds, evictions := r.sessionBinds, r.sessionEvictions
	r.sessionBinds, r.sessionEvictions = map[string]string{}, nil
	return binds, evictions
}

func sessionResult(ctx context.Context, e *embedded, c *cache.Cache, n int, p *scheduler.Policy, binds map[string]string, evictions []string, annotations map[string]map[string]string) (*SessionResult, error) {
	// collect fills binds, evictions and bind annotations from a recorder:
	// give it one that holds only this session's.
	rec := &recorder{binds: binds, evictions: evictions, bindAnnotations: annotations}
	res, err := collect(ctx, e, c, rec, &Result{Cycles: n})
	if err != nil {
		return nil, err
	}
	sr := &SessionResult{Result: *res, Session: n, Policy: p, Plugins: map[string]string{}}
	if p != nil {
		maps.Copy(sr.Plugins, p.Versions)
	}
	return sr, nil
}
