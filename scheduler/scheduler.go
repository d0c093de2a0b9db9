// Package scheduler ties the cache, the configuration and the registries into
// the session loop: open a session on a snapshot, run the configured actions
// in order, close it.
package scheduler

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/klog/v2"

	"github.com/caldera-scheduler/caldera/scheduler/conf"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
	"github.com/caldera-scheduler/caldera/scheduler/metrics"
)

// Scheduler runs sessions. The policy (plugins and configuration) can be
// swapped between sessions (hot reload); a session always runs start to
// finish with the one it started with.
type Scheduler struct {
	cache    framework.Cache
	actions  framework.ActionRegistry
	policies *PolicyStore
}

// New returns a scheduler over a cache with fixed registries and
// configuration.
func New(cache framework.Cache, plugins framework.Registry, actions framework.ActionRegistry, cfg *conf.Config) *Scheduler {
	return NewWithPolicies(cache, actions, NewPolicyStore(&Policy{Plugins: plugins, Config: cfg}))
}

// NewWithPolicies returns a scheduler whose sessions each run with the
// store's current policy.
func NewWithPolicies(cache framework.Cache, actions framework.ActionRegistry, policies *PolicyStore) *Scheduler {
	return &Scheduler{cache: cache, actions: actions, policies: policies}
}

// Policies returns the store the scheduler takes its policy from.
func (s *Scheduler) Policies() *PolicyStore { return s.policies }

// errNoPolicy is returned by sessions started after the store was closed.
var errNoPolicy = errors.New("no scheduling policy: the policy store is closed")

// RunOnce runs one session to completion.
func (s *Scheduler) RunOnce() error {
	_, err := s.RunSession()
	return err
}

// RunSession runs one session to completion and returns the policy it ran
// with. The policy may have been retired by the time RunSession returns:
// read its Config and Versions, do not open sessions with its plugins.
func (s *Scheduler) RunSession() (*Policy, error) {
	p := s.policies.Acquire()
	if p == nil {
		return nil, errNoPolicy
	}
	defer p.Release()
	return p, s.runSession(p.Plugins, p.Config)
}

func (s *Scheduler) runSession(plugins framework.Registry, cfg *conf.Config) error {
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
	ssn, err := framework.OpenSession(s.cache, plugins, cfg)
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
