// Package scheduler ties the cache, the configuration and the registries into
// the session loop: open a session on a snapshot, run the configured actions
// in order, close it.
package scheduler

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"k8s.io/klog/v2"

	"github.com/caldera-scheduler/caldera/scheduler/conf"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
	"github.com/caldera-scheduler/caldera/scheduler/metrics"
)

// Scheduler runs sessions. The configuration can be swapped between sessions
// (hot reload); a session always runs with the one it started with.
type Scheduler struct {
	cache   framework.Cache
	plugins framework.Registry
	actions framework.ActionRegistry
	config  atomic.Pointer[conf.Config]
}

// New returns a scheduler over a cache with the given registries and
// configuration.
func New(cache framework.Cache, plugins framework.Registry, actions framework.ActionRegistry, cfg *conf.Config) *Scheduler {
	s := &Scheduler{cache: cache, plugins: plugins, actions: actions}
	s.config.Store(cfg)
	return s
}

// SetConfig replaces the configuration from the next session on.
func (s *Scheduler) SetConfig(cfg *conf.Config) { s.config.Store(cfg) }

// Config returns the configuration the next session will use.
func (s *Scheduler) Config() *conf.Config { return s.config.Load() }

// RunOnce runs one session to completion.
func (s *Scheduler) RunOnce() error {
	cfg := s.config.Load()
	actions := make([]framework.Action, 0, len(cfg.Actions))
	for _, name := range cfg.Actions {
		f, ok := s.actions[name]
		if !ok {
			return fmt.Errorf("action %q is not registered", name)
		}
		a, err := f(conf.ActionArguments(cfg.Configurations, name))
		if err != nil {
			return fmt.Errorf("action %q: %w", name, err)
		}
		actions = append(actions, a)
	}
	start := time.Now()
	ssn, err := framework.OpenSession(s.cache, s.plugins, cfg)
	if err != nil {
		return err
	}
	for _, a := range actions {
		actionStart := time.Now()
		a.Execute(ssn)
		metrics.ActionLatency.WithLabelValues(a.Name()).Observe(metrics.SinceMicroseconds(actionStart))
	}
	ssn.Close()
	metrics.E2ESchedulingLatency.Observe(metrics.SinceMilliseconds(start))
	return nil
}

// Run runs a session, waits period, and repeats until ctx is done. A session
// that has started always finishes: cancellation is only looked at between
// sessions. A failed session is logged and the next one runs as usual.
func (s *Scheduler) Run(ctx context.Context, period time.Duration) {
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		if ctx.Err() != nil {
			return
		}
		if err := s.RunOnce(); err != nil {
			klog.ErrorS(err, "Session failed")
		}
		timer.Reset(period)
	}
}
