package caldera

import (
	"fmt"

	"github.com/tinylib/msgp/msgp"
)

// result appends a hook's result to the reply.
type result func([]byte) []byte

// served maps hook IDs to the code that decodes their handles, runs the
// author's hook and encodes its answer. A hook the plugin does not
// implement answers EUNKNOWN_HOOK (the scheduler never calls one it did not
// declare, so this only happens to a confused host).
var served = map[uint32]func(h *host) (int32, string, result){
	hookJobOrderKeys: func(h *host) (int32, string, result) {
		p, ok := registered.(JobOrderKeyer)
		if !ok {
			return unknown("job_order_keys")
		}
		jobs, err := h.jobList(h.args.Jobs)
		if err != nil {
			return codeDecodeFailed, err.Error(), nil
		}
		keys := make([]Key, len(jobs))
		for i, j := range jobs {
			keys[i] = p.JobOrderKey(h.session, j)
		}
		return ok0(encodeKeys(keys))
	},
	hookTaskOrderKeys: func(h *host) (int32, string, result) {
		p, ok := registered.(TaskOrderKeyer)
		if !ok {
			return unknown("task_order_keys")
		}
		tasks, err := h.taskList(h.args.Tasks)
		if err != nil {
			return codeDecodeFailed, err.Error(), nil
		}
		keys := make([]Key, len(tasks))
		for i, t := range tasks {
			keys[i] = p.TaskOrderKey(h.session, t)
		}
		return ok0(encodeKeys(keys))
	},
	hookQueueOrderKeys: func(h *host) (int32, string, result) {
		p, ok := registered.(QueueOrderKeyer)
		if !ok {
			return unknown("queue_order_keys")
		}
		queues, err := h.queueList(h.args.Queues)
		if err != nil {
			return codeDecodeFailed, err.Error(), nil
		}
		keys := make([]Key, len(queues))
		for i, q := range queues {
			keys[i] = p.QueueOrderKey(h.session, q)
		}
		return ok0(encodeKeys(keys))
	},
	hookVictimQueueOrderKeys: func(h *host) (int32, string, result) {
		p, ok := registered.(VictimQueueOrderKeyer)
		if !ok {
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
		keys := make([]Key, len(queues))
		for i, q := range queues {
			keys[i] = p.VictimQueueOrderKey(h.session, q, preemptor)
		}
		return ok0(encodeKeys(keys))
	},
	hookPrePredicate: func(h *host) (int32, string, result) {
		p, ok := registered.(PrePredicater)
		if !ok {
			return unknown("pre_predicate")
		}
		t, err := h.task(h.args.Task)
		if err != nil {
			return codeDecodeFailed, err.Error(), nil
		}
		v := p.PrePredicate(h.session, t)
		return ok0(func(b []byte) []byte { return appendVerdict(b, v) })
	},
	hookPredicateBatch: (*host).predicate,
	hookNodeOrderBatch: (*host).nodeOrder,
	hookBestNode: func(h *host) (int32, string, result) {
		p, ok := registered.(BestNodePicker)
		if !ok {
			return unknown("best_node")
		}
		t, nodes, err := h.taskOnNodes()
		if err != nil {
			return codeDecodeFailed, err.Error(), nil
		}
		if len(h.args.Scores) != len(nodes) {
			return codeDecodeFailed, fmt.Sprintf("best_node: %d scores for %d nodes", len(h.args.Scores), len(nodes)), nil
		}
		pick := int32(-1)
		if n := p.BestNode(h.session, t, nodes, h.args.Scores); n != nil {
			pick = n.Handle
		}
		return ok0(func(b []byte) []byte { return msgp.AppendInt32(b, pick) })
	},
	hookPreemptable: func(h *host) (int32, string, result) {
		p, ok := registered.(PreemptableFilter)
		if !ok {
			return unknown("preemptable")
		}
		return h.victims(p.Preemptable)
	},
	hookReclaimable: func(h *host) (int32, string, result) {
		p, ok := registered.(ReclaimableFilter)
		if !ok {
			return unknown("reclaimable")
		}
		return h.victims(p.Reclaimable)
	},
	hookVictimTasks: func(h *host) (int32, string, result) {
		p, ok := registered.(VictimTasksProvider)
		if !ok {
			return unknown("victim_tasks")
		}
		tasks, err := h.taskList(h.args.Tasks)
		if err != nil {
			return codeDecodeFailed, err.Error(), nil
		}
		return ok0(appendTaskHandles(p.VictimTasks(h.session, tasks)))
	},
	hookOverused: func(h *host) (int32, string, result) {
		p, ok := registered.(OverusedChecker)
		if !ok {
			return unknown("overused")
		}
		q, err := h.queue(h.args.Queue)
		if err != nil {
			return codeDecodeFailed, err.Error(), nil
		}
		return okBool(p.Overused(h.session, q))
	},
	hookAllocatable: func(h *host) (int32, string, result) {
		p, ok := registered.(AllocatableChecker)
		if !ok {
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
		return okBool(p.Allocatable(h.session, q, t))
	},
	hookPreemptive: func(h *host) (int32, string, result) {
		p, ok := registered.(PreemptiveChecker)
		if !ok {
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
		return okBool(p.Preemptive(h.session, q, tasks))
	},
	hookJobReady: func(h *host) (int32, string, result) {
		p, ok := registered.(JobReadyChecker)
		if !ok {
			return unknown("job_ready")
		}
		return h.onJob(func(j *Job) result { return boolResult(p.JobReady(h.session, j)) })
	},
	hookJobStarving: func(h *host) (int32, string, result) {
		p, ok := registered.(JobStarvingChecker)
		if !ok {
			return unknown("job_starving")
		}
		return h.onJob(func(j *Job) result { return boolResult(p.JobStarving(h.session, j)) })
	},
	hookJobPipelined: func(h *host) (int32, string, result) {
		p, ok := registered.(JobPipelinedVoter)
		if !ok {
			return unknown("job_pipelined")
		}
		return h.onJob(func(j *Job) result { return voteResult(p.JobPipelined(h.session, j)) })
	},
	hookJobEnqueueable: func(h *host) (int32, string, result) {
		p, ok := registered.(JobEnqueueableVoter)
		if !ok {
			return unknown("job_enqueueable")
		}
		return h.onJob(func(j *Job) result { return voteResult(p.JobEnqueueable(h.session, j)) })
	},
	hookJobValid: func(h *host) (int32, string, result) {
		p, ok := registered.(JobValidator)
		if !ok {
			return unknown("job_valid")
		}
		return h.onJob(func(j *Job) result {
			r := p.JobValid(h.session, j)
			return func(b []byte) []byte {
				b = msgp.AppendMapHeader(b, 3)
				b = msgp.AppendString(b, "pass")
				b = msgp.AppendBool(b, r == nil)
				var reason, message string
				if r != nil {
					reason, message = r.Reason, r.Message
				}
				b = msgp.AppendString(b, "reason")
				b = msgp.AppendString(b, reason)
				b = msgp.AppendString(b, "message")
				return msgp.AppendString(b, message)
			}
		})
	},
	hookTargetJob: func(h *host) (int32, string, result) {
		p, ok := registered.(TargetJobPicker)
		if !ok {
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
		return ok0(func(b []byte) []byte { return msgp.AppendInt32(b, pick) })
	},
}

func unknown(hook string) (int32, string, result) {
	return codeUnknownHook, hook + " is not implemented", nil
}

func ok0(r result) (int32, string, result) { return int32(Success), "", r }

func okBool(v bool) (int32, string, result) { return ok0(boolResult(v)) }

func boolResult(v bool) result {
	return func(b []byte) []byte { return msgp.AppendBool(b, v) }
}

func voteResult(v Vote) result {
	return func(b []byte) []byte { return msgp.AppendInt32(b, int32(v)) }
}

func encodeKeys(keys []Key) result {
	return func(b []byte) []byte {
		b = msgp.AppendArrayHeader(b, uint32(len(keys)))
		for _, k := range keys {
			b = msgp.AppendArrayHeader(b, uint32(len(k)))
			for _, f := range k {
				b = msgp.AppendFloat64(b, f)
			}
		}
		return b
	}
}

func appendVerdict(b []byte, v Verdict) []byte {
	b = msgp.AppendArrayHeader(b, 2)
	b = msgp.AppendInt32(b, int32(v.Code))
	return msgp.AppendString(b, v.Reason)
}

func appendTaskHandles(tasks []*Task) result {
	return func(b []byte) []byte {
		b = msgp.AppendArrayHeader(b, uint32(len(tasks)))
		for _, t := range tasks {
			b = msgp.AppendInt32(b, t.Handle)
		}
		return b
	}
}

func (h *host) onJob(run func(*Job) result) (int32, string, result) {
	j, err := h.job(h.args.Job)
	if err != nil {
		return codeDecodeFailed, err.Error(), nil
	}
	return ok0(run(j))
}

func (h *host) victims(filter func(*Session, *Task, []*Task) ([]*Task, bool)) (int32, string, result) {
	t, err := h.task(h.args.Task)
	if err != nil {
		return codeDecodeFailed, err.Error(), nil
	}
	candidates, err := h.taskList(h.args.Tasks)
	if err != nil {
		return codeDecodeFailed, err.Error(), nil
	}
	victims, voted := filter(h.session, t, candidates)
	return ok0(func(b []byte) []byte {
		b = msgp.AppendArrayHeader(b, 2)
		b = msgp.AppendBool(b, voted)
		return appendTaskHandles(victims)(b)
	})
}

func (h *host) nodeOrder() (int32, string, result) {
	p, ok := registered.(NodeOrderBatcher)
	if !ok {
		return unknown("node_order_batch")
	}
	task, nodes, err := h.taskOnNodes()
	if err != nil {
		return codeDecodeFailed, "node_order_batch: " + err.Error(), nil
	}
	h.scores = resize(h.scores, len(nodes))
	if err := p.NodeOrderBatch(h.session, task, nodes, h.scores); err != nil {
		return int32(Error), err.Error(), nil
	}
	return ok0(func(b []byte) []byte {
		b = msgp.AppendArrayHeader(b, uint32(len(h.scores)))
		for _, s := range h.scores {
			b = msgp.AppendFloat64(b, s)
		}
		return b
	})
}

func (h *host) predicate() (int32, string, result) {
	p, ok := registered.(PredicateBatcher)
	if !ok {
		return unknown("predicate_batch")
	}
	task, nodes, err := h.taskOnNodes()
	if err != nil {
		return codeDecodeFailed, "predicate_batch: " + err.Error(), nil
	}
	if cap(h.verdict) < len(nodes) {
		h.verdict = make([]Verdict, len(nodes))
	}
	h.verdict = h.verdict[:len(nodes)]
	clear(h.verdict)
	p.PredicateBatch(h.session, task, nodes, h.verdict)
	return ok0(func(b []byte) []byte {
		b = msgp.AppendArrayHeader(b, uint32(len(h.verdict)))
		for _, v := range h.verdict {
			b = appendVerdict(b, v)
		}
		return b
	})
}
