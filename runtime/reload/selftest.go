package reload

import (
	"fmt"
	"sync/atomic"

	"go.yaml.in/yaml/v3"

	"github.com/caldera-scheduler/caldera/runtime"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/conf"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// SelfTestPods is how many pods the self-test cluster has to place.
const SelfTestPods = 3

// SelfTest runs one session on a small built-in cluster (two nodes, one
// tainted and with GPUs; a gang of two; a GPU pod) with the module as
// plugin name after the native priority, gang and predicates plugins, and
// with args as its arguments. It fails if any call into the module fails:
// a trap, a missed deadline, exhausted memory, a malformed reply, or a
// status other than OK (an argument the module refuses, say), and the
// error names the first such failure since p was loaded: a self-test
// runs on a module just loaded, whose first failure is the cause of the
// others (a session reopened on a module that cannot be, say).
// `caldera plugin validate` runs it, and so does every module before a
// reload puts it into service. It returns how many of the SelfTestPods
// pods the session bound.
//
// The session runs on a snapshot made in memory, not through informers:
// the module sees the same hooks and view, and a reload is not slowed by
// an informer sync nor counted in the scheduler's binding metrics; its
// calls are kept out of the plugin metrics too, so p must not be serving
// sessions meanwhile.
//
// native must be a registry of the native plugins that SelfTest may add
// to.
func SelfTest(name string, p *runtime.Plugin, args map[string]any, native framework.Registry, actions framework.ActionRegistry) (int, error) {
	bound, _, err := SelfTestOn(newSelfTestSnapshot(), name, p, args, native, actions)
	return bound, err
}

// SelfTestOn is SelfTest on a cluster of the caller's (`caldera plugin
// validate --cluster`); it returns how many pods the session bound and
// how many were pending before it.
func SelfTestOn(snapshot *api.ClusterInfo, name string, p *runtime.Plugin, args map[string]any, native framework.Registry, actions framework.ActionRegistry) (bound, pending int, err error) {
	for _, job := range snapshot.Jobs {
		pending += len(job.TaskStatusIndex[api.Pending])
	}
	if _, clash := native[name]; clash {
		name += ".module"
	}
	native[name] = runtime.Factory(name, p, runtime.Policy{})
	entry := map[string]any{"name": name}
	if len(args) > 0 {
		entry["arguments"] = args
	}
	tiers := []any{map[string]any{"plugins": []any{
		map[string]any{"name": "priority"}, map[string]any{"name": "gang"}, map[string]any{"name": "predicates"}, entry,
	}}}
	text, err := yaml.Marshal(map[string]any{"actions": "enqueue, allocate, backfill", "tiers": tiers})
	if err != nil {
		return 0, pending, fmt.Errorf("self-test configuration: %w", err)
	}
	cfg, err := conf.Parse(text, "self-test configuration", framework.Validator{Plugins: native, Actions: actions})
	if err != nil {
		return 0, pending, err
	}
	calls, failed := p.Calls(), p.Failures()
	p.SetMetered(false)
	defer p.SetMetered(true)
	cluster := &selfTestCluster{snapshot: snapshot}
	if err := selfTestSession(cluster, native, actions, cfg); err != nil {
		return 0, pending, fmt.Errorf("self-test session: %w", err)
	}
	if n := p.Failures() - failed; n > 0 {
		return 0, pending, fmt.Errorf("self-test session: %d of %d calls into the module failed, the first: %w", n, p.Calls()-calls, p.FirstFailure())
	}
	return int(cluster.binds.Load()), pending, nil
}

// selfTestSession opens a session, runs the configured actions and closes
// it, as a scheduler session does, without the scheduler's metrics.
func selfTestSession(cache framework.Cache, plugins framework.Registry, actions framework.ActionRegistry, cfg *conf.Config) error {
	var run []framework.Action
	for _, name := range cfg.Actions {
		a, err := actions[name](conf.ActionArguments(cfg.Configurations, name))
		if err != nil {
			return fmt.Errorf("action %q: %w", name, err)
		}
		run = append(run, a)
	}
	ssn, err := framework.OpenSession(cache, plugins, cfg)
	if err != nil {
		return err
	}
	for _, a := range run {
		a.Execute(ssn)
	}
	ssn.Close()
	return nil
}

// selfTestCluster serves one snapshot and counts the binds made on it.
type selfTestCluster struct {
	snapshot *api.ClusterInfo
	binds    atomic.Int64
}

func (c *selfTestCluster) Snapshot() *api.ClusterInfo         { return c.snapshot }
func (c *selfTestCluster) Bind(*api.TaskInfo, string) error   { c.binds.Add(1); return nil }
func (c *selfTestCluster) Evict(*api.TaskInfo, string) error  { return nil }
func (c *selfTestCluster) UpdateJobStatus(*api.JobInfo, bool) {}

// SelfTestSnapshot returns a new copy of the built-in self-test cluster.
func SelfTestSnapshot() *api.ClusterInfo { return newSelfTestSnapshot() }
