package extender

import (
	"sync"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"

	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Plugin is the extender plugin for one session.
type Plugin struct {
	cfg *Config
	ep  *endpoint
	ssn *framework.Session

	// absent makes the extender sit out the rest of the session, every
	// hook answering as if it were not configured; the next session asks
	// it again. It is set when a required extender's onSessionOpen fails
	// (Volcano then registers none of its hooks) and, with
	// extender.failFast, by an ignorable extender's first failed call.
	absent atomic.Bool
	// openErr is, with extender.failClosed, the failed onSessionOpen of a
	// required extender: it has not seen this session's snapshot, so every
	// decision it guards fails closed, without asking it.
	openErr error

	mu sync.Mutex
	// logged marks the calls whose failure this session already logged at
	// error level; later failures of the same call go to verbosity 4, so
	// that a dead extender asked per node does not flood the log.
	logged [numCalls]bool
	// lastErr is the session's latest failure, for tests.
	lastErr error
	batch   batchAnswers
}

var (
	_ framework.Plugin              = &Plugin{}
	_ framework.HookFilter          = &Plugin{}
	_ framework.Predicater          = &Plugin{}
	_ framework.BatchNodeScorer     = &Plugin{}
	_ framework.PreemptableFilter   = &Plugin{}
	_ framework.ReclaimableFilter   = &Plugin{}
	_ framework.OverusedChecker     = &Plugin{}
	_ framework.JobEnqueueableVoter = &Plugin{}
	_ framework.JobEnqueuedObserver = &Plugin{}
	_ framework.JobReadyChecker     = &Plugin{}
	_ framework.EventHandler        = &Plugin{}
	_ framework.AllocateRefuser     = &Plugin{}
)

// NewFactory returns the plugin's factory. The plugins one factory makes
// share an HTTP client per extender address, timeout and concurrency limit,
// so that connections are reused from session to session. A registry is
// built per policy (hostplugins.Registry makes a new factory each time, and
// the reloader asks for a registry per reload), so the connections last as
// long as the policy in service.
func NewFactory() framework.Factory {
	registerDefault()
	p := &pool{}
	return func(args framework.Arguments) (framework.Plugin, error) {
		cfg, err := ParseConfig(args)
		if err != nil {
			return nil, err
		}
		pl := &Plugin{cfg: &cfg}
		if cfg.anyVerb() {
			pl.ep = p.endpoint(&cfg)
		}
		return pl, nil
	}
}

// Name returns "extender".
func (p *Plugin) Name() string { return Name }

// Offers registers a hook only when its verb is set, as Volcano registers a
// function only for a configured verb.
func (p *Plugin) Offers(h framework.Hook) bool {
	v := &p.cfg.Verbs
	switch h {
	case framework.HookPredicate:
		return v[Predicate] != "" || v[BatchPredicate] != ""
	case framework.HookBatchNodeOrder:
		return v[Prioritize] != ""
	case framework.HookPreemptable:
		return v[Preemptable] != ""
	case framework.HookReclaimable:
		return v[Reclaimable] != ""
	case framework.HookOverused:
		return v[QueueOverused] != ""
	case framework.HookJobEnqueueable:
		return v[JobEnqueueable] != ""
	case framework.HookJobEnqueued:
		return v[JobEnqueued] != ""
	case framework.HookJobReady:
		return v[JobReady] != ""
	case framework.HookEventHandler:
		return v[AllocateFunc] != "" || v[DeallocateFunc] != ""
	}
	return false
}

// OnSessionOpen sends the snapshot when onSessionOpenVerb is set. When that
// fails, a required extender sits the session out, as Volcano then registers
// none of its hooks (with extender.failClosed its decisions fail instead);
// an ignorable one is asked as usual (with extender.failFast it sits out).
func (p *Plugin) OnSessionOpen(ssn *framework.Session) {
	p.ssn = ssn
	if p.cfg.Verbs[OnSessionOpen] == "" {
		return
	}
	o, err := p.ask(OnSessionOpen, func(e *encoder) any { return snapshot(e, ssn) }, nil)
	if o != failedRequired {
		return
	}
	if p.cfg.FailClosed {
		p.openErr = err
		return
	}
	p.leave(OnSessionOpen)
}

// OnSessionClose tells the extender the session is over, whatever happened
// during it, so that it can drop what it kept.
func (p *Plugin) OnSessionClose(*framework.Session) {
	if p.cfg.Verbs[OnSessionClose] == "" {
		return
	}
	if err := p.ep.post(OnSessionClose, p.cfg.Verbs[OnSessionClose], sessionCloseRequest{}, nil); err != nil {
		p.warn(OnSessionClose, err)
	}
}

func snapshot(e *encoder, ssn *framework.Session) *sessionOpenRequest {
	req := &sessionOpenRequest{
		Jobs:           make(map[api.JobID]*wireJob, len(ssn.Jobs)),
		Nodes:          make(map[string]*wireNode, len(ssn.Nodes)),
		Queues:         make(map[api.QueueID]*wireQueue, len(ssn.Queues)),
		NamespaceInfo:  map[string]any{},
		RevocableNodes: map[string]*wireNode{},
		NodeList:       make([]string, 0, len(ssn.NodeList)),
	}
	for id, j := range ssn.Jobs {
		req.Jobs[id] = e.job(j)
	}
	for name, n := range ssn.Nodes {
		w := e.node(n)
		req.Nodes[name] = w
		// Volcano's revocable nodes are those labelled with a zone.
		if w.RevocableZone != "" {
			req.RevocableNodes[name] = w
		}
	}
	for id, q := range ssn.Queues {
		req.Queues[id] = e.queue(q)
	}
	for _, n := range ssn.NodeList {
		req.NodeList = append(req.NodeList, n.Name)
	}
	return req
}

// interested reports whether the extender wants to hear about a task:
// always, unless managedResources is set, and then only when a container
// or init container requests or limits one of them (Volcano's rule).
func (p *Plugin) interested(t *api.TaskInfo) bool {
	if len(p.cfg.ManagedResources) == 0 {
		return true
	}
	if t.Pod == nil {
		return false
	}
	for _, cs := range [][]v1.Container{t.Pod.Spec.Containers, t.Pod.Spec.InitContainers} {
		for i := range cs {
			for _, rl := range []v1.ResourceList{cs[i].Resources.Requests, cs[i].Resources.Limits} {
				for name := range rl {
					if p.cfg.ManagedResources[string(name)] {
						return true
					}
				}
			}
		}
	}
	return false
}
