// Package gangevict is what gangpreempt and gangreclaim share: Volcano
// v1.15's gang-aware eviction (pkg/scheduler/actions/utils, bundle.go and
// simulate.go). A starving job looks for a domain (a hypernode, or the
// whole cluster) where evicting whole groups of other jobs' tasks lets
// every one of its pending tasks be pipelined; it evicts only when the
// trial leaves the job pipelined.
package gangevict

import (
	"k8s.io/klog/v2"

	"github.com/caldera-scheduler/caldera/internal/logonce"
	"github.com/caldera-scheduler/caldera/internal/pqueue"
	"github.com/caldera-scheduler/caldera/scheduler/actions/internal/placement"
	"github.com/caldera-scheduler/caldera/scheduler/actions/internal/shared"
	"github.com/caldera-scheduler/caldera/scheduler/api"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Argument names, Volcano's.
const (
	MaxDomainsKey       = "maxDomains"
	AllowWholeBundleKey = "allowWholeBundle"
)

// Args are a gang eviction action's arguments.
type Args struct {
	// MaxDomains caps the domains tried per starving job (default 8; zero
	// or less falls back to it, as in Volcano).
	MaxDomains int
	// AllowWholeBundle lets a job lose tasks it needs for its gang, which
	// costs it the whole job (default true).
	AllowWholeBundle bool
	Search           placement.SearchArgs
}

// ReadArgs reads maxDomains, allowWholeBundle and the node search
// arguments; any other key is an error naming it.
func ReadArgs(args framework.Arguments, d shared.NodeSearch) (Args, error) {
	known := append([]string{MaxDomainsKey, AllowWholeBundleKey}, placement.SearchKeys...)
	if err := args.RejectUnknown(known...); err != nil {
		return Args{}, err
	}
	a := Args{MaxDomains: 8, AllowWholeBundle: true}
	var err error
	if a.Search, err = placement.ReadSearchArgs(args, d); err != nil {
		return a, err
	}
	if err := args.Int(MaxDomainsKey, &a.MaxDomains); err != nil {
		return a, err
	}
	if a.MaxDomains <= 0 {
		klog.InfoS("maxDomains is not positive: using 8", "maxDomains", a.MaxDomains)
		a.MaxDomains = 8
	}
	return a, args.Bool(AllowWholeBundleKey, &a.AllowWholeBundle)
}

// Factory returns the factory of the action that evicts by the policy;
// state is shared with the other actions of the registry.
func Factory(state *shared.State, p Policy) framework.ActionFactory {
	return func(args framework.Arguments) (framework.Action, error) {
		a, err := ReadArgs(args, state.Search)
		if err != nil {
			return nil, err
		}
		return &action{args: a, state: state, policy: p}, nil
	}
}

type action struct {
	args   Args
	state  *shared.State
	policy Policy
}

func (a *action) Name() string { return a.policy.Name }

func (a *action) Execute(ssn *framework.Session) {
	r := &Run{Args: a.args, State: a.state, Policy: a.policy}
	r.Execute(ssn)
}

// Policy is what differs between gangpreempt and gangreclaim.
type Policy struct {
	// Name is the action's, and the eviction reason recorded on victims.
	Name string
	Kind framework.EvictionKind
	// SkipQueue says a queue's starving jobs are not served (reclaim skips
	// overused queues).
	SkipQueue func(ssn *framework.Session, q *api.QueueInfo) bool
	// MayEvictFor says whether the job may evict at all for its pending
	// tasks (reclaim asks the queue's Preemptive).
	MayEvictFor func(ssn *framework.Session, q *api.QueueInfo, pending []*api.TaskInfo) bool
	// Candidate says whether a task on a domain node may be a victim of
	// the starving job.
	Candidate func(ssn *framework.Session, starving *api.JobInfo, t *api.TaskInfo) bool
	// Before orders victim jobs: true when l gives up its tasks before r.
	Before func(ssn *framework.Session, starving *api.JobInfo) func(l, r *api.JobInfo) bool
}

// Run is one execution of a gang eviction action.
type Run struct {
	Args
	Policy
	State *shared.State
	ssn   *framework.Session
	// scorer picks nodes within a trial; kept across trials.
	scorer *placement.Scorer
}

// Execute serves the starving jobs queue by queue, in the session's queue
// and job orders; a job's evictions and pipelines are committed only when
// it ends up pipelined.
func (r *Run) Execute(ssn *framework.Session) {
	r.ssn, r.scorer = ssn, placement.NewScorer(ssn)
	// Only queues with a starving job are visited: Volcano visits every
	// queue with a job, but one without a starving job decides nothing, and
	// asking whether it is overused may cost an extender or Wasm call.
	queues := pqueue.New(ssn.QueueOrderFn)
	starving := map[api.QueueID]*pqueue.Queue[*api.JobInfo]{}
	for _, job := range ssn.JobList {
		if job.IsPending() || ssn.TopologyWaits(job) {
			continue
		}
		if vr := ssn.JobValid(job); vr != nil && !vr.Pass {
			continue
		}
		queue, ok := ssn.Queues[job.Queue]
		if !ok || !ssn.JobStarving(job) {
			continue
		}
		if job.HasSubJobs() {
			// Volcano places such a job's sub-jobs in separate domains
			// and nominates them for allocate; Caldera does not yet.
			logonce.Warning("gangevict", job.Key()+": "+r.Name+" does not evict for a job with spec.subGroupPolicy (not implemented; see README); its sub-jobs wait for room")
			continue
		}
		if starving[job.Queue] == nil {
			starving[job.Queue] = pqueue.New(ssn.JobOrderFn)
			queues.Push(queue)
		}
		starving[job.Queue].Push(job)
	}
	for !queues.Empty() {
		queue := queues.Pop()
		if r.SkipQueue != nil && r.SkipQueue(ssn, queue) {
			continue
		}
		for jobs := starving[queue.UID]; !jobs.Empty(); {
			job := jobs.Pop()
			stmt := framework.NewStatement(ssn)
			r.serve(stmt, queue, job)
			if ssn.JobPipelined(job) {
				stmt.Commit()
			} else {
				stmt.Discard()
			}
		}
	}
}

// serve tries the job's domains in turn; in each, it adds the ordered
// bundles one at a time until the domain's idle and releasing room plus
// what they free covers the pending tasks, and then tries to place them.
func (r *Run) serve(stmt *framework.Statement, queue *api.QueueInfo, job *api.JobInfo) {
	ssn := r.ssn
	pending := pendingTasks(ssn, job)
	if len(pending) == 0 {
		return
	}
	if r.MayEvictFor != nil && !r.MayEvictFor(ssn, queue, pending) {
		klog.V(3).InfoS("Queue may not evict for the job", "queue", queue.Name, "job", job.UID)
		return
	}
	need := api.EmptyResource()
	for _, t := range pending {
		need.Add(t.InitResreq)
	}
	for _, domain := range r.domains(job) {
		nodes := domain.Nodes
		if len(nodes) == 0 {
			continue
		}
		bundles := r.bundlesIn(job, need, domain)
		if len(bundles) == 0 {
			continue
		}
		room := api.EmptyResource()
		for _, n := range nodes {
			room.Add(n.Idle)
			room.Add(n.Releasing)
		}
		var victims []*api.TaskInfo
		for _, b := range bundles {
			victims = append(victims, b.tasks...)
			room.Add(b.local)
			if !need.LessEqual(room, api.Zero) {
				continue
			}
			if r.place(stmt, queue, job, domain, pending, victims) {
				return
			}
		}
	}
}

// pendingTasks are the job's pending tasks an action would place (not
// gated, requesting something), in task order.
func pendingTasks(ssn *framework.Session, job *api.JobInfo) []*api.TaskInfo {
	q := pqueue.New(ssn.TaskOrderFn)
	for _, t := range job.TaskStatusIndex[api.Pending] {
		if !placement.Gated(t) && !t.Resreq.IsEmpty() {
			q.Push(t)
		}
	}
	out := make([]*api.TaskInfo, 0, q.Len())
	for !q.Empty() {
		out = append(out, q.Pop())
	}
	return out
}

// domains lists the hypernodes to try for the job, widest first, at most
// MaxDomains: the network-topology-aware plugin's eviction gradients for a
// job with a hard topology, the whole cluster otherwise.
func (r *Run) domains(job *api.JobInfo) []*api.HyperNodeInfo {
	top := r.ssn.HyperNodes.Top()
	seen := map[string]bool{}
	var out []*api.HyperNodeInfo
	for _, g := range r.ssn.HyperNodeGradientFn(job, nil, top, framework.ScopeJob, framework.PurposeEvict) {
		for _, hn := range g {
			if hn == nil || seen[hn.Name] {
				continue
			}
			seen[hn.Name] = true
			out = append(out, hn)
			if len(out) >= r.MaxDomains {
				return out
			}
		}
	}
	if len(out) == 0 && !r.ssn.HasTopology(job) {
		out = append(out, top)
	}
	return out
}

// bundlesIn groups the domain's candidate victims by job into bundles,
// orders them, keeps what the plugins' Evictable lets go, and orders
// again; whole bundles are dropped unless allowed.
func (r *Run) bundlesIn(job *api.JobInfo, need *api.Resource, domain *api.HyperNodeInfo) []*bundle {
	ssn := r.ssn
	byJob := map[api.JobID][]*api.TaskInfo{}
	var jobs []api.JobID
	for _, n := range domain.Nodes {
		for _, t := range n.Tasks {
			if !r.Candidate(ssn, job, t) {
				continue
			}
			if byJob[t.Job] == nil {
				jobs = append(jobs, t.Job)
			}
			byJob[t.Job] = append(byJob[t.Job], t)
		}
	}
	var bundles []*bundle
	for _, id := range jobs {
		bundles = append(bundles, bundlesOf(ssn.Jobs[id], byJob[id])...)
	}
	if len(bundles) == 0 {
		return nil
	}
	before := r.Before(ssn, job)
	sortBundles(bundles, need, before)
	var ordered []*api.TaskInfo
	for _, b := range bundles {
		ordered = append(ordered, b.tasks...)
	}
	ctx := &framework.EvictionContext{Kind: r.Kind, Job: job, HyperNode: domain.Name}
	allowed := ssn.Evictable(ctx, ordered)
	if len(allowed) == 0 {
		return nil
	}
	bundles = allowedOnly(bundles, allowed)
	sortBundles(bundles, need, before)
	out := bundles[:0]
	for _, b := range bundles {
		if b.kind == whole && !r.AllowWholeBundle {
			continue
		}
		out = append(out, b)
	}
	return out
}
