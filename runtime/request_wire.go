package runtime

import (
	"encoding/binary"
	"math"

	"github.com/caldera-scheduler/caldera/abi"
)

// appendRequest writes the envelope of a hook call whose arguments are
// handles, as EncodeRequest's reflection would, and reports false for any
// other arguments (session_open's view, cache_event's objects), which the
// caller then encodes by reflection. These are the calls a session makes
// thousands of times; by hand a call's request costs no allocation
// (BenchmarkEncodeRequest).
func appendRequest(b []byte, req abi.Request) ([]byte, bool) {
	start := len(b)
	if len(req.Events) > 0 {
		b = appendMapLen(b, 2)
		b = appendArrayLen(appendStr(b, "e"), len(req.Events))
		for _, e := range req.Events {
			b = appendInt32(appendInt32(appendInt32(append(b, 0x93), e[0]), e[1]), e[2])
		}
	} else {
		b = appendMapLen(b, 1)
	}
	b = appendStr(b, "a")
	b, ok := appendHandleArgs(b, req.Args)
	if !ok {
		return b[:start], false
	}
	return b, true
}

// appendHandleArgs writes the arguments of the hooks that name objects by
// handle. Each struct is a map of its fields in declaration order, as
// msgpack/v5 encodes a struct.
func appendHandleArgs(b []byte, args any) ([]byte, bool) {
	switch a := args.(type) {
	case nil:
		return appendNil(b), true
	case abi.TaskArgs:
		return appendInt32Field(appendMapLen(b, 1), "task", a.Task), true
	case abi.JobArgs:
		return appendInt32Field(appendMapLen(b, 1), "job", a.Job), true
	case abi.QueueArgs:
		return appendInt32Field(appendMapLen(b, 1), "queue", a.Queue), true
	case abi.QueueTaskArgs:
		b = appendInt32Field(appendMapLen(b, 2), "queue", a.Queue)
		return appendInt32Field(b, "task", a.Task), true
	case abi.QueueTasksArgs:
		b = appendInt32Field(appendMapLen(b, 2), "queue", a.Queue)
		return appendHandlesField(b, "tasks", a.Tasks), true
	case abi.CandidatesArgs:
		b = appendInt32Field(appendMapLen(b, 2), "task", a.Task)
		return appendHandlesField(b, "tasks", a.Tasks), true
	case abi.TasksArgs:
		return appendHandlesField(appendMapLen(b, 1), "tasks", a.Tasks), true
	case abi.JobsArgs:
		return appendHandlesField(appendMapLen(b, 1), "jobs", a.Jobs), true
	case abi.QueuesArgs:
		b = appendInt32Field(appendMapLen(b, 2), "queue", a.Queue)
		return appendHandlesField(b, "queues", a.Queues), true
	case abi.BatchArgs:
		// Nodes, Trial, JobHyperNode and Claims are omitempty.
		b = appendInt32Field(appendMapLen(b, 1+countTrue(len(a.Nodes) > 0, a.Trial, a.JobHyperNode != nil, len(a.Claims) > 0)), "task", a.Task)
		if len(a.Nodes) > 0 {
			b = appendHandlesField(b, "nodes", a.Nodes)
		}
		if a.Trial {
			b = appendBool(appendStr(b, "trial"), true)
		}
		if a.JobHyperNode != nil {
			b = appendInt32Field(b, "jobHyperNode", *a.JobHyperNode)
		}
		if len(a.Claims) > 0 {
			b = appendNodeClaims(appendStr(b, "claims"), a.Claims)
		}
		return b, true
	case abi.HyperNodeOrderArgs:
		b = appendInt32Field(appendMapLen(b, 3), "job", a.Job)
		b = appendInt32Field(b, "allocatedHyperNode", a.Allocated)
		return appendHandlesField(b, "hyperNodes", a.HyperNodes), true
	case abi.HyperNodeGradientArgs:
		b = appendInt32Field(appendMapLen(b, 5), "job", a.Job)
		b = appendInt32Field(b, "within", a.Within)
		b = appendInt32Field(b, "scope", a.Scope)
		b = appendInt32Field(b, "purpose", a.Purpose)
		return appendInt32Field(b, "allocatedHyperNode", a.Allocated), true
	case abi.BestNodeArgs:
		b = appendInt32Field(appendMapLen(b, 3), "task", a.Task)
		b = appendHandlesField(b, "nodes", a.Nodes)
		b = appendStr(b, "scores")
		if a.Scores == nil {
			return appendNil(b), true
		}
		b = appendArrayLen(b, len(a.Scores))
		for _, s := range a.Scores {
			b = binary.BigEndian.AppendUint64(append(b, 0xcb), math.Float64bits(s))
		}
		return b, true
	}
	return b, false
}

// appendHandlesField writes a slice of handles; a nil slice is nil, as
// reflection writes it, and an empty one an empty array.
func appendHandlesField(b []byte, key string, hs []int32) []byte {
	b = appendStr(b, key)
	if hs == nil {
		return appendNil(b)
	}
	b = appendArrayLen(b, len(hs))
	for _, h := range hs {
		b = appendInt32(b, h)
	}
	return b
}

// appendNodeClaims writes predicate_batch's claims (1.10): per node nil, or
// [ruledOut, [[stage, code, [reasons]]]]; nil lists as nil, as reflection
// writes them.
func appendNodeClaims(b []byte, claims []*abi.NodeClaims) []byte {
	b = appendArrayLen(b, len(claims))
	for _, nc := range claims {
		if nc == nil {
			b = appendNil(b)
			continue
		}
		b = appendBool(append(b, 0x92), nc.RuledOut)
		if nc.Checks == nil {
			b = appendNil(b)
			continue
		}
		b = appendArrayLen(b, len(nc.Checks))
		for _, c := range nc.Checks {
			b = appendInt32(appendInt32(append(b, 0x93), c.Stage), int32(c.Code))
			b = appendStrs(b, c.Reasons)
		}
	}
	return b
}

// appendStrs writes a list of strings, nil as nil.
func appendStrs(b []byte, ss []string) []byte {
	if ss == nil {
		return appendNil(b)
	}
	b = appendArrayLen(b, len(ss))
	for _, s := range ss {
		b = appendStr(b, s)
	}
	return b
}
