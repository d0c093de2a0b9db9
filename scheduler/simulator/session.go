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
	// Images maps each of those plugins whose module was pulled from a
	// registry to the image, pinned by manifest digest; absent when none.
	Images map[string]string `json:"images,omitempty"`
	// Policy is what the session ran with; it may already be retired.
	Policy *scheduler.Policy `json:"-"`
}

// sessionDecisions are the binds, evictions and claims bound since the
// recorder's last takeSession.
type sessionDecisions struct {
	binds     map[string]string
	evictions []string
	volumes   map[string]string
	claims    map[string][]string
}

// takeSession returns the decisions made since its last call.
func (r *recorder) takeSession() sessionDecisions {
	r.mu.Lock()
	defer r.mu.Unlock()
	d := sessionDecisions{binds: r.sessionBinds, evictions: r.sessionEvictions, volumes: r.sessionVolumes, claims: r.sessionClaims}
	r.sessionBinds, r.sessionEvictions, r.sessionVolumes, r.sessionClaims = map[string]string{}, nil, map[string]string{}, map[string][]string{}
	return d
}

func sessionResult(ctx context.Context, e *embedded, c *cache.Cache, n int, p *scheduler.Policy, d sessionDecisions, annotations map[string]map[string]string) (*SessionResult, error) {
	// collect fills binds, evictions, bind annotations and volumes from a
	// recorder: give it one that holds only this session's.
	rec := &recorder{binds: d.binds, evictions: d.evictions, bindAnnotations: annotations, volumes: d.volumes, claims: d.claims}
	res, err := collect(ctx, e, c, rec, &Result{Cycles: n})
	if err != nil {
		return nil, err
	}
	sr := &SessionResult{Result: *res, Session: n, Policy: p, Plugins: map[string]string{}}
	if p != nil {
		maps.Copy(sr.Plugins, p.Versions)
		if len(p.Images) > 0 {
			sr.Images = maps.Clone(p.Images)
		}
	}
	return sr, nil
}
