package caldera

import (
	"strconv"

	"github.com/caldera-scheduler/caldera/guest-sdk/go/internal/wire"
)

// A handler decodes its hook's handles, runs the author's hook and returns
// the status and the encoded result: nil for none, else bytes appended to
// the host's scratch buffer (h.result, then h.ok). Results are written at
// once rather than returned as closures: in TinyGo a closure that captures
// anything is a heap allocation, and allocations during a session are what
// make its collector walk the whole view.
type handler func(h *host) (int32, string, []byte)

// served holds, by hook ID, the code that decodes a hook's handles, runs
// the author's hook and encodes its answer (an array, not a map: it is
// consulted on every call). A hook the plugin does not
// implement answers EUNKNOWN_HOOK (the scheduler never calls one it did not
// declare, so this only happens to a confused host).
var served = [hookAllocate + 1]handler{
	hookJobOrderKeys: func(h *host) (int32, string, []byte) {
		p := impl.jobOrderKeyer
		if p == nil {
			return unknown("job_order_keys")
		}
		jobs, err := h.jobList(h.args.Jobs)
		if err != nil {
			return codeDecodeFailed, err.Error(), nil
		}
		b := wire.AppendArrayHeader(h.result(), uint32(len(jobs)))
		for _, j := range jobs {
			b = appendFloats(b, p.JobOrderKey(h.session, j))
		}
		return h.ok(b)
	},
	hookTaskOrderKeys: func(h *host) (int32, string, []byte) {
		p := impl.taskOrderKeyer
		if p == nil {
			return unknown("task_order_keys")
		}
		tasks, err := h.taskList(h.args.Tasks)
		if err != nil {
			return codeDecodeFailed, err.Error(), nil
		}
		b := wire.AppendArrayHeader(h.result(), uint32(len(tasks)))
		for _, t := range tasks {
			b = appendFloats(b, p.TaskOrderKey(h.session, t))
		}
		return h.ok(b)
	},
	hookQueueOrderKeys: func(h *host) (int32, string, []byte) {
		p := impl.queueOrderKeyer
		if p == nil {
			return unknown("queue_order_keys")
		}
		queues, err := h.queueList(h.args.Queues)
		if err != nil {
			return codeDecodeFailed, err.Error(), nil
		}
		b := wire.AppendArrayHeader(h.result(), uint32(len(queues)))
		for _, q := range queues {
			b = appendFloats(b, p.QueueOrderKey(h.session, q))
		}
		return h.ok(b)
	},
	hookVictimQueueOrderKeys: func(h *host) (int32, string, []byte) {
		p := impl.victimQueueOrderKeyer
		if p == nil {
			return unknown("victim_queue_order_keys")
		}
		preemptor, err := h.queue(h.args.Queue)
		if err != nil {
			return codeDecodeFailed, err.Error(), nil
		}
		queues, err := h.queueList(h.args.Queues)
		if err != nil {
			return codeDecodeFailed, err.Error(), nil
		}
		b := wire.AppendArrayHeader(h.result(), uint32(len(queues)))
		for _, q := range queues {
			b = appendFloats(b, p.VictimQueueOrderKey(h.session, q, preemptor))
		}
		return h.ok(b)
	},
	hookPrePredicate: func(h *host) (int32, string, []byte) {
		p := impl.prePredicater
		if p == nil {
			return unknown("pre_predicate")
		}
		t, err := h.task(h.args.Task)
		if err != nil {
			return codeDecodeFailed, err.Error(), nil
		}
		v := p.PrePredicate(h.session, t)
		if v.Code == Success && h.asksRules(t) {
			return h.ok(appendRuledVerdict(h.result(), v, &h.rules))
		}
		return h.ok(appendVerdict(h.result(), v))
	},
	hookPredicateBatch: (*host).predicate,
	hookAllocate:       (*host).allocate,
	hookNodeOrderBatch: (*host).nodeOrder,
	hookBestNode: func(h *host) (int32, string, []byte) {
		p := impl.bestNodePicker
		if p == nil {
			return unknown("best_node")
		}
		t, nodes, err := h.taskOnNodes()
		if err != nil {
			return codeDecodeFailed, err.Error(), nil
		}
		if len(h.args.Scores) != len(nodes) {
			return codeDecodeFailed, "best_node: " + itoa(len(h.args.Scores)) + " scores for " + itoa(len(nodes)) + " nodes", nil
		}
		pick := int32(-1)
		if n := p.BestNode(h.session, t, nodes, h.args.Scores); n != nil {
			pick = n.Handle
		}
		return h.ok(wire.AppendInt32(h.result(), pick))
	},
	hookPreemptable: func(h *host) (int32, string, []byte) {
		p := impl.preemptableFilter
		if p == nil {
			return unknown("preemptable")
		}
		return h.victims(p.Preemptable)
	},
	hookReclaimable: func(h *host) (int32, string, []byte) {
		p := impl.reclaimableFilter
		if p == nil {
			return unknown("reclaimable")
		}
		return h.victims(p.Reclaimable)
	},
	hookEvictable: func(h *host) (int32, string, []byte) {
		p := impl.evictableFilter
		if p == nil {
			return unknown("evictable")
		}
		j, err := h.job(h.args.Job)
		if err != nil {
			return codeDecodeFailed, err.Error(), nil
		}
		candidates, err := h.taskList(h.args.Tasks)
		if err != nil {
			return codeDecodeFailed, err.Error(), nil
		}
		ctx := EvictionContext{Kind: EvictionKind(h.args.Kind), Job: j, HyperNode: h.args.HyperNode}
		return h.okVictims(p.Evictable(h.session, ctx, candidates))
	},
	hookHyperNodeOrder: func(h *host) (int32, string, []byte) {
		p := impl.hyperNodeScorer
		if p == nil {
			return unknown("hyper_node_order")
		}
		search, err := h.search()
		if err != nil {
			return codeDecodeFailed, "hyper_node_order: " + err.Error(), nil
		}
		hns, err := h.hyperNodeList(h.args.HyperNodes)
		if err != nil {
			return codeDecodeFailed, "hyper_node_order: " + err.Error(), nil
		}
		h.scores = resize(h.scores, len(hns))
		if err := p.HyperNodeOrder(h.session, search, hns, h.scores); err != nil {
			return int32(Error), err.Error(), nil
		}
		return h.ok(appendFloats(h.result(), h.scores))
	},
	hookHyperNodeGradient: func(h *host) (int32, string, []byte) {
		p := impl.hyperNodeGradienter
		if p == nil {
			return unknown("hyper_node_gradient")
		}
		search, err := h.search()
		if err != nil {
			return codeDecodeFailed, "hyper_node_gradient: " + err.Error(), nil
		}
		gradients := p.HyperNodeGradient(h.session, search)
		b := wire.AppendArrayHeader(h.result(), uint32(len(gradients)))
		for _, g := range gradients {
			b = wire.AppendArrayHeader(b, uint32(len(g)))
			for _, hn := range g {
				b = wire.AppendInt32(b, hn.Handle)
			}
		}
		return h.ok(b)
	},
	hookVictimTasks: func(h *host) (int32, string, []byte) {
		p := impl.victimTasksProvider
		if p == nil {
			return unknown("victim_tasks")
		}
		tasks, err := h.taskList(h.args.Tasks)
		if err != nil {
			return codeDecodeFailed, err.Error(), nil
		}
		return h.ok(appendTaskHandles(h.result(), p.VictimTasks(h.session, tasks)))
	},
	hookOverused: func(h *host) (int32, string, []byte) {
		p := impl.overusedChecker
		if p == nil {
			return unknown("overused")
		}
		q, err := h.queue(h.args.Queue)
		if err != nil {
			return codeDecodeFailed, err.Error(), nil
		}
		return h.okBool(p.Overused(h.session, q))
	},
	hookAllocatable: func(h *host) (int32, string, []byte) {
		p := impl.allocatableChecker
		if p == nil {
			return unknown("allocatable")
		}
		q, err := h.queue(h.args.Queue)
		if err != nil {
			return codeDecodeFailed, err.Error(), nil
		}
		t, err := h.task(h.args.Task)
		if err != nil {
			return codeDecodeFailed, err.Error(), nil
		}
		return h.okBool(p.Allocatable(h.session, q, t))
	},
	hookPreemptive: func(h *host) (int32, string, []byte) {
		p := impl.preemptiveChecker
		if p == nil {
			return unknown("preemptive")
		}
		q, err := h.queue(h.args.Queue)
		if err != nil {
			return codeDecodeFailed, err.Error(), nil
		}
		tasks, err := h.taskList(h.args.Tasks)
		if err != nil {
			return codeDecodeFailed, err.Error(), nil
		}
		return h.okBool(p.Preemptive(h.session, q, tasks))
	},
	hookJobReady: func(h *host) (int32, string, []byte) {
		p := impl.jobReadyChecker
		if p == nil {
			return unknown("job_ready")
		}
		j, err := h.job(h.args.Job)
		if err != nil {
			return codeDecodeFailed, err.Error(), nil
		}
		return h.okBool(p.JobReady(h.session, j))
	},
	hookJobStarving: func(h *host) (int32, string, []byte) {
		p := impl.jobStarvingChecker
		if p == nil {
			return unknown("job_starving")
		}
		j, err := h.job(h.args.Job)
		if err != nil {
			return codeDecodeFailed, err.Error(), nil
		}
		return h.okBool(p.JobStarving(h.session, j))
	},
	hookJobPipelined: func(h *host) (int32, string, []byte) {
		p := impl.jobPipelinedVoter
		if p == nil {
			return unknown("job_pipelined")
		}
		j, err := h.job(h.args.Job)
		if err != nil {
			return codeDecodeFailed, err.Error(), nil
		}
		return h.okVote(p.JobPipelined(h.session, j))
	},
	hookJobEnqueueable: func(h *host) (int32, string, []byte) {
		p := impl.jobEnqueueableVoter
		if p == nil {
			return unknown("job_enqueueable")
		}
		j, err := h.job(h.args.Job)
		if err != nil {
			return codeDecodeFailed, err.Error(), nil
		}
		return h.okVote(p.JobEnqueueable(h.session, j))
	},
	hookJobValid: func(h *host) (int32, string, []byte) {
		p := impl.jobValidator
		if p == nil {
			return unknown("job_valid")
		}
		j, err := h.job(h.args.Job)
		if err != nil {
			return codeDecodeFailed, err.Error(), nil
		}
		r := p.JobValid(h.session, j)
		b := wire.AppendMapHeader(h.result(), 3)
		b = wire.AppendString(b, "pass")
		b = wire.AppendBool(b, r == nil)
		var reason, message string
		if r != nil {
			reason, message = r.Reason, r.Message
		}
		b = wire.AppendString(b, "reason")
		b = wire.AppendString(b, reason)
		b = wire.AppendString(b, "message")
		return h.ok(wire.AppendString(b, message))
	},
	hookTargetJob: func(h *host) (int32, string, []byte) {
		p := impl.targetJobPicker
		if p == nil {
			return unknown("target_job")
		}
		jobs, err := h.jobList(h.args.Jobs)
		if err != nil {
			return codeDecodeFailed, err.Error(), nil
		}
		pick := int32(-1)
		if j := p.TargetJob(h.session, jobs); j != nil {
			pick = j.Handle
		}
		return h.ok(wire.AppendInt32(h.result(), pick))
	},
}

func unknown(hook string) (int32, string, []byte) {
	return codeUnknownHook, hook + " is not implemented", nil
}

// result returns the scratch buffer, emptied, for a handler to append its
// result to; ok keeps what was appended (and any growth) for the next call.
func (h *host) result() []byte { return h.out[:0] }

func (h *host) ok(b []byte) (int32, string, []byte) {
	h.out = b
	return int32(Success), "", b
}

// okNone is success without a result (msgpack nil).
func okNone() (int32, string, []byte) { return int32(Success), "", nil }

func (h *host) okBool(v bool) (int32, string, []byte) {
	return h.ok(wire.AppendBool(h.result(), v))
}

func (h *host) okVote(v Vote) (int32, string, []byte) {
	return h.ok(wire.AppendInt32(h.result(), int32(v)))
}

func appendVerdict(b []byte, v Verdict) []byte {
	b = wire.AppendArrayHeader(b, 2)
	b = wire.AppendInt32(b, int32(v.Code))
	return wire.AppendString(b, v.Reason)
}

// asksRules asks the plugin for task t's domain rules when the scheduler
// reads them (ABI 1.5) and t has a node-local class, and reports whether
// it gave them.
func (h *host) asksRules(t *Task) bool {
	r := impl.domainRuler
	if r == nil || !h.session.ReadsDomainRules() || int(t.Handle) >= len(h.classes) || h.classes[t.Handle] < 0 {
		return false
	}
	h.rules.Class, h.rules.Rules = 0, h.rules.Rules[:0]
	ok := r.PredicateDomainRules(h.session, t, &h.rules)
	// More than MaxDomainRules are sent too: the scheduler then serves the
	// task without kept verdicts, which its class alone would not say.
	return ok
}

// appendRuledVerdict writes a passing pre_predicate verdict with its
// domain rules: [code, reason, {ruleClass, rules: [[key, [value], fail]]}].
func appendRuledVerdict(b []byte, v Verdict, r *DomainRules) []byte {
	b = wire.AppendArrayHeader(b, 3)
	b = wire.AppendInt32(b, int32(v.Code))
	b = wire.AppendString(b, v.Reason)
	b = wire.AppendMapHeader(b, 2)
	b = wire.AppendInt32(wire.AppendString(b, "ruleClass"), r.Class)
	b = wire.AppendArrayHeader(wire.AppendString(b, "rules"), uint32(len(r.Rules)))
	for i := range r.Rules {
		d := &r.Rules[i]
		b = wire.AppendArrayHeader(b, 3)
		b = wire.AppendString(b, d.Key)
		b = wire.AppendArrayHeader(b, uint32(len(d.Values)))
		for _, v := range d.Values {
			b = wire.AppendString(b, v)
		}
		b = wire.AppendInt32(b, int32(d.Fail))
	}
	return b
}

func appendTaskHandles(b []byte, tasks []*Task) []byte {
	b = wire.AppendArrayHeader(b, uint32(len(tasks)))
	for _, t := range tasks {
		b = wire.AppendInt32(b, t.Handle)
	}
	return b
}

func (h *host) victims(filter func(*Session, *Task, []*Task) ([]*Task, bool)) (int32, string, []byte) {
	t, err := h.task(h.args.Task)
	if err != nil {
		return codeDecodeFailed, err.Error(), nil
	}
	candidates, err := h.taskList(h.args.Tasks)
	if err != nil {
		return codeDecodeFailed, err.Error(), nil
	}
	return h.okVictims(filter(h.session, t, candidates))
}

// okVictims answers a victim filter: [voted, [task handles]].
func (h *host) okVictims(victims []*Task, voted bool) (int32, string, []byte) {
	b := wire.AppendArrayHeader(h.result(), 2)
	b = wire.AppendBool(b, voted)
	return h.ok(appendTaskHandles(b, victims))
}

func (h *host) nodeOrder() (int32, string, []byte) {
	p := impl.nodeOrderBatcher
	if p == nil {
		return unknown("node_order_batch")
	}
	task, nodes, err := h.taskOnNodes()
	if err != nil {
		return codeDecodeFailed, "node_order_batch: " + err.Error(), nil
	}
	h.scores = resize(h.scores, len(nodes))
	placed, err := h.hyperNode(h.args.JobHyperNode)
	if err != nil {
		return codeDecodeFailed, "node_order_batch: " + err.Error(), nil
	}
	h.session.jobHyperNode = placed
	err = p.NodeOrderBatch(h.session, task, nodes, h.scores)
	h.session.jobHyperNode = nil
	if err != nil {
		return int32(Error), err.Error(), nil
	}
	return h.ok(appendFloats(h.result(), h.scores))
}

func (h *host) predicate() (int32, string, []byte) {
	p := impl.predicateBatcher
	if p == nil {
		return unknown("predicate_batch")
	}
	task, nodes, err := h.taskOnNodes()
	if err != nil {
		return codeDecodeFailed, "predicate_batch: " + err.Error(), nil
	}
	h.verdict = resize(h.verdict, len(nodes))
	if n := len(h.args.Claims); n > 0 && n != len(nodes) {
		return codeDecodeFailed, "predicate_batch: " + strconv.Itoa(n) + " claims for " + strconv.Itoa(len(nodes)) + " nodes", nil
	}
	for _, nc := range h.args.Claims {
		if nc == nil {
			continue
		}
		for j := range nc.Checks {
			// The status codes of docs/abi.md section 7, 0 to 5.
			if c := nc.Checks[j].Code; c < 0 || c > 5 {
				return codeDecodeFailed, "predicate_batch: claim check code " + strconv.Itoa(int(c)), nil
			}
		}
	}
	h.session.trial = h.args.Trial
	h.session.nodeClaims = h.args.Claims
	p.PredicateBatch(h.session, task, nodes, h.verdict)
	h.session.trial = false
	h.session.nodeClaims = nil
	b := wire.AppendArrayHeader(h.result(), uint32(len(h.verdict)))
	for _, v := range h.verdict {
		b = appendVerdict(b, v)
	}
	return h.ok(b)
}
