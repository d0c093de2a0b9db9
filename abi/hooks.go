package abi

// The requests and results of the hooks after session_open (docs/abi.md,
// section 5). Handles are indices into the session view's lists. Every
// field is always sent: a handle of 0 is a real handle.

import (
	"fmt"

	"github.com/vmihailenco/msgpack/v5"
)

// TaskArgs names one task: pre_predicate.
type TaskArgs struct {
	Task int32 `msgpack:"task"`
}

// JobArgs names one job: job_ready, job_pipelined, job_valid,
// job_enqueueable, job_starving.
type JobArgs struct {
	Job int32 `msgpack:"job"`
}

// QueueArgs names one queue: overused.
type QueueArgs struct {
	Queue int32 `msgpack:"queue"`
}

// QueueTaskArgs is allocatable's request: may the queue take the task.
type QueueTaskArgs struct {
	Queue int32 `msgpack:"queue"`
	Task  int32 `msgpack:"task"`
}

// QueueTasksArgs is preemptive's request.
type QueueTasksArgs struct {
	Queue int32   `msgpack:"queue"`
	Tasks []int32 `msgpack:"tasks"`
}

// CandidatesArgs is the request of preemptable and reclaimable: the task
// that needs room and the tasks that could make it.
type CandidatesArgs struct {
	Task  int32   `msgpack:"task"`
	Tasks []int32 `msgpack:"tasks"`
}

// EvictableArgs is evictable's request (1.8): which gang eviction asks
// (EvictGangPreempt or EvictGangReclaim), for which starving job, in which
// hypernode (section 5), and the candidates in the action's order.
type EvictableArgs struct {
	Kind      int32   `msgpack:"kind"`
	Job       int32   `msgpack:"job"`
	HyperNode string  `msgpack:"hyperNode"`
	Tasks     []int32 `msgpack:"tasks"`
}

// The kinds of EvictableArgs.
const (
	EvictGangPreempt int32 = 1
	EvictGangReclaim int32 = 2
)

// HyperNodeOrderArgs is hyper_node_order's request (1.9): the job and the
// candidate hypernodes, by hypernode handle (an index in View.HyperNodes),
// and the job's allocated hypernode as of the call (-1 for none): the
// view's Job.AllocatedHyperNode is as the session opened, and allocate
// moves it when it commits a job's placement.
type HyperNodeOrderArgs struct {
	Job        int32   `msgpack:"job"`
	Allocated  int32   `msgpack:"allocatedHyperNode"`
	HyperNodes []int32 `msgpack:"hyperNodes"`
}

// HyperNodeGradientArgs is hyper_node_gradient's request (1.9): the job,
// the hypernode searched within (-1 for none: the whole cluster), which
// search asks (GradientScopeJob or GradientScopeTasks) and why
// (PurposeAllocate or PurposeEvict), and the job's allocated hypernode as
// of the call (-1 for none).
type HyperNodeGradientArgs struct {
	Job       int32 `msgpack:"job"`
	Within    int32 `msgpack:"within"`
	Scope     int32 `msgpack:"scope"`
	Purpose   int32 `msgpack:"purpose"`
	Allocated int32 `msgpack:"allocatedHyperNode"`
}

// The scopes and purposes of HyperNodeGradientArgs.
const (
	GradientScopeJob   int32 = 0
	GradientScopeTasks int32 = 1
	PurposeAllocate    int32 = 0
	PurposeEvict       int32 = 1
)

// AllocateArgs is allocate's request (1.12): the task just placed, and the
// host's clock in Unix nanoseconds (a module's own clock is a fixed fake).
type AllocateArgs struct {
	Task int32 `msgpack:"task"`
	Now  int64 `msgpack:"now"`
}

// AllocateResult is allocate's result (1.12): annotations to write on the
// pod at its bind, a nil value removing one the module gave it before, or
// the reason the module refuses the placement.
type AllocateResult struct {
	Annotations map[string]*string `msgpack:"annotations,omitempty"`
	Refusal     string             `msgpack:"refusal,omitempty"`
}

// TasksArgs lists tasks: task_order_keys, victim_tasks.
type TasksArgs struct {
	Tasks []int32 `msgpack:"tasks"`
}

// JobsArgs lists jobs: job_order_keys, target_job.
type JobsArgs struct {
	Jobs []int32 `msgpack:"jobs"`
}

// QueuesArgs lists queues: queue_order_keys, and with the preemptor's queue
// victim_queue_order_keys.
type QueuesArgs struct {
	Queue  int32   `msgpack:"queue"`
	Queues []int32 `msgpack:"queues"`
}

// BestNodeArgs is best_node's request: the scored candidates, best first.
type BestNodeArgs struct {
	Task   int32     `msgpack:"task"`
	Nodes  []int32   `msgpack:"nodes"`
	Scores []float64 `msgpack:"scores"`
}

// Key is one object's order key, compared element by element; the lower
// key goes first.
type Key []float64

// Victims is the result of preemptable, reclaimable: the tasks the plugin
// allows to be evicted, and whether it voted at all.
type Victims struct {
	_msgpack struct{} `msgpack:",as_array"`
	Voted    bool
	Tasks    []int32
}

// ValidateResult is job_valid's result.
type ValidateResult struct {
	Pass    bool   `msgpack:"pass"`
	Reason  string `msgpack:"reason"`
	Message string `msgpack:"message"`
}

// Condition is a PodGroup condition a module asks the host to set, in
// session_close's result.
type Condition struct {
	Job     int32  `msgpack:"job"`
	Type    string `msgpack:"type"`
	Status  string `msgpack:"status"`
	Reason  string `msgpack:"reason"`
	Message string `msgpack:"message"`
}

// OpenResult is session_open's result; nil promises nothing. A host that
// predates it ignores it, and a module that predates it sends nil.
type OpenResult struct {
	// NodeLocalScores promises, for this session, that a node_order_batch
	// score depends on nothing but its node and the task's shape, as
	// Descriptor.NodeLocal words it for verdicts: not on the other nodes
	// asked about, so no normalisation over them. The host then keeps each
	// score while the node is unchanged, for the rest of the session.
	NodeLocalScores bool `msgpack:"nodeLocalScores,omitempty"`
	// ScoreShapeWithoutRules (1.5), with NodeLocalScores, promises that
	// no score of the session reads a task's inter-pod rules (its
	// podAffinity, podAntiAffinity, affinityError, spreadConstraints and
	// spreadDefaulted): the host keeps scores under the shape without
	// them, so that tasks that differ only there share them.
	ScoreShapeWithoutRules bool `msgpack:"scoreShapeWithoutRules,omitempty"`
	// PrePredicateByShape promises, for this session, that a pre_predicate
	// verdict depends on nothing but the task's shape (the fields that
	// Descriptor.NodeLocal's comment lists; the module need not declare
	// NodeLocal) and the session's arguments: not on other
	// tasks, jobs or nodes, nor on the session's events. The host then asks
	// once per shape and keeps the verdict for the rest of the session.
	PrePredicateByShape bool `msgpack:"prePredicateByShape,omitempty"`
	// NodeLocalWithdrawn (1.4) withdraws, for this session, the promise
	// of Descriptor.NodeLocal: the host keeps no verdict given in it and
	// serves none kept from earlier sessions. A predicates port whose
	// verdicts read other pods (inter-pod affinity, topology spread) in
	// this session sends it.
	NodeLocalWithdrawn bool `msgpack:"nodeLocalWithdrawn,omitempty"`
	// NodeLocalClasses (1.4), one per task handle, keeps node-local verdicts
	// for some tasks of a session in which a NodeLocal module withdrew the
	// promise: a task of
	// class c >= 0 has verdicts that depend on nothing but the node (the
	// pods on it with every field) and the task's shape and class, so tasks
	// of one shape and one class share them; -1 means not node-local. The
	// host keeps them for this session only, and keeps or recalls them for
	// a task only in the epoch its pre_predicate was asked, where the
	// module's own state is current. A list of another length promises
	// nothing.
	NodeLocalClasses []int32 `msgpack:"nodeLocalClasses,omitempty"`
}

// PreVerdict is pre_predicate's result: a Verdict, to which a module may
// add, for a host of 1.5 or later (OpenArgs.ABI), the task's domain rules.
// A module of 1.4 or earlier sends [code, reason].
type PreVerdict struct {
	_msgpack struct{} `msgpack:",as_array"`
	Code     Code
	Reason   string
	Rules    *DomainRules
}

// DecodeMsgpack reads [code, reason] or [code, reason, rules]: the
// struct form would refuse an array shorter than the struct.
func (v *PreVerdict) DecodeMsgpack(d *msgpack.Decoder) error {
	n, err := d.DecodeArrayLen()
	if err != nil {
		return err
	}
	*v = PreVerdict{}
	if n < 0 {
		return nil
	}
	if n < 2 || n > 3 {
		return fmt.Errorf("pre_predicate result of %d elements, want [code, reason] or [code, reason, rules]", n)
	}
	code, err := d.DecodeInt32()
	if err != nil {
		return err
	}
	if v.Reason, err = d.DecodeString(); err != nil {
		return err
	}
	v.Code = Code(code)
	if n == 3 {
		return d.Decode(&v.Rules)
	}
	return nil
}

// DomainRules (1.5) name the rules of a task's predicate_batch verdicts
// that read a node's topology domain, one label's value, as of this
// pre_predicate: the inter-pod affinity and spread rules of the
// predicates port. For a task of node-local class c >= 0 the module
// promises, until the next event, that its verdict on a node where every
// rule passes is its class-c verdict, and on a node where some rule fails
// depends on nothing but the node, the task's shape, c, RuleClass and the
// state in which each rule fails there. The host then keeps and recalls
// both kinds (docs/abi.md, "Domain rules").
type DomainRules struct {
	RuleClass int32        `msgpack:"ruleClass"`
	Rules     []DomainRule `msgpack:"rules"`
}

// MaxDomainRules is the most rules a task's DomainRules may hold; the host
// serves a task with more without kept verdicts.
const MaxDomainRules = 32

// DomainRule is [key, values, fail]: a node is in one of three states
// for it, and the rule fails in the states Fail names.
type DomainRule struct {
	_msgpack struct{} `msgpack:",as_array"`
	Key      string
	Values   []string
	Fail     RuleFail
}

// RuleFail is a set of the states in which a DomainRule fails. It is
// read as a 32-bit integer, so that a value with bits past the three states
// is seen, and refused, rather than cut to them.
type RuleFail int32

// A node's state for a DomainRule: it lacks the label Key, its value is
// one of Values, or it is another.
const (
	FailMissing  RuleFail = 1
	FailListed   RuleFail = 2
	FailUnlisted RuleFail = 4
	failAll               = FailMissing | FailListed | FailUnlisted
)

// Valid reports whether f names states only.
func (f RuleFail) Valid() bool { return f >= 0 && f&^failAll == 0 }

// CloseArgs is session_close's request to a module of minor 6 or later
// that the session gave fit errors: why no node took each task that found
// none, in task handle order. A session without any sends no arguments.
type CloseArgs struct {
	FitErrors []TaskFitError `msgpack:"fitErrors"`
}

// TaskFitError is one task's fit error, worded as the scheduler words it
// on the pod ("0/3 nodes are unavailable: 3 Insufficient cpu.").
type TaskFitError struct {
	_msgpack struct{} `msgpack:",as_array"`
	Task     int32
	Message  string
}

// CloseResult is session_close's result; nil means nothing to do.
type CloseResult struct {
	Conditions []Condition `msgpack:"conditions,omitempty"`
}
