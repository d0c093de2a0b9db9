package framework

import (
	"github.com/caldera-scheduler/caldera/scheduler/api"
)

type opKind int

const (
	opAllocate opKind = iota
	opPipeline
	opEvict
)

type operation struct {
	kind   opKind
	task   *api.TaskInfo
	node   string
	reason string
	// prev is the status an evicted task had, to restore on discard.
	prev api.TaskStatus
}

// Statement is a transaction over the session: allocations, pipelines and
// evictions change the session at once (so later decisions see them) and
// reach the cluster only on Commit; Discard undoes them in reverse order.
type Statement struct {
	ssn *Session
	ops []operation
}

// NewStatement opens a transaction on the session.
func NewStatement(ssn *Session) *Statement { return &Statement{ssn: ssn} }

// Allocate places a task on a node whose idle resources fit it. An event
// handler may refuse (AllocateRefuser): the placement is then undone and the
// error says who refused and why.
func (s *Statement) Allocate(task *api.TaskInfo, node *api.NodeInfo) error {
	if err := s.ssn.allocateRefusable(task, node, api.Allocated); err != nil {
		return err
	}
	s.ops = append(s.ops, operation{kind: opAllocate, task: task, node: node.Name})
	return nil
}

// Pipeline promises a task the resources that releasing tasks will free on
// a node. evictionOccurred says victims were evicted for it (preempt,
// reclaim): the pod is then nominated to the node. An event handler may
// refuse, as in Allocate.
func (s *Statement) Pipeline(task *api.TaskInfo, node string, evictionOccurred bool) error {
	n, ok := s.ssn.Nodes[node]
	if !ok {
		return errNodeNotInSession(node)
	}
	if err := s.ssn.allocateRefusable(task, n, api.Pipelined); err != nil {
		return err
	}
	task.EvictionOccurred = evictionOccurred
	s.ops = append(s.ops, operation{kind: opPipeline, task: task, node: node})
	return nil
}

// Evict marks a running task for eviction with a reason.
func (s *Statement) Evict(task *api.TaskInfo, reason string) error {
	prev, err := s.ssn.evict(task)
	if err != nil {
		return err
	}
	s.ops = append(s.ops, operation{kind: opEvict, task: task, reason: reason, prev: prev})
	return nil
}

// Operations reports how many decisions the statement holds.
func (s *Statement) Operations() int { return len(s.ops) }

// Plan is the allocations and pipelines of a statement, kept so that they
// can be made again after the statement is discarded: allocate tries a
// job in several hypernodes and keeps the best trial.
type Plan []operation

// Plan returns the statement's decisions. It holds no evictions.
func (s *Statement) Plan() Plan { return append(Plan(nil), s.ops...) }

// Replay makes a plan's decisions again, in order, on this statement.
func (s *Statement) Replay(p Plan) error {
	for _, op := range p {
		var err error
		switch op.kind {
		case opAllocate:
			n, ok := s.ssn.Nodes[op.node]
			if !ok {
				return errNodeNotInSession(op.node)
			}
			err = s.Allocate(op.task, n)
		case opPipeline:
			err = s.Pipeline(op.task, op.node, op.task.EvictionOccurred)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Discard undoes every decision, newest first.
func (s *Statement) Discard() {
	for i := len(s.ops) - 1; i >= 0; i-- {
		op := s.ops[i]
		op.task.RememberTransaction()
		switch op.kind {
		case opAllocate, opPipeline:
			s.ssn.deallocate(op.task)
		case opEvict:
			s.ssn.unevict(op.task, op.prev)
		}
	}
	s.ops = nil
}

// Commit sends evictions and binds to the cache, in the order they were
// made. An eviction the cache refuses is undone in the session; a bind it
// refuses leaves the task allocated, and the cache's resync retries it.
func (s *Statement) Commit() {
	for _, op := range s.ops {
		op.task.ForgetTransaction()
		switch op.kind {
		case opEvict:
			if err := s.ssn.cache.Evict(op.task, op.reason); err != nil {
				logSessionError(s.ssn, "evict failed", err)
				s.ssn.unevict(op.task, op.prev)
			}
		case opAllocate:
			if err := s.ssn.dispatch(op.task); err != nil {
				logSessionError(s.ssn, "bind failed", err)
			}
		case opPipeline:
			// Nothing reaches the cluster: the task waits for the next session.
		}
	}
	s.ops = nil
}

type errNodeNotInSession string

func (e errNodeNotInSession) Error() string { return "node " + string(e) + " is not in the session" }
