package dra

import (
	"errors"
	"fmt"
)

// Code tells the scheduler how to treat a refusal. The values follow the
// scheduler framework's status codes of the same names so that the caller
// can map them one to one.
type Code int

const (
	// Unschedulable: the pod does not fit right now, but another attempt
	// (for example after something else was unreserved) may succeed.
	// kube-scheduler 1.32's DRA plugin does not use it for PreFilter or
	// Filter; this package uses it only when Reserve finds the session
	// changed under the pod.
	Unschedulable Code = iota + 1
	// UnschedulableAndUnresolvable: the pod cannot use this node (Filter)
	// or any node (PreFilter) until the DRA objects change; preempting
	// other pods does not help. kube-scheduler 1.32 reports every DRA
	// refusal with this code.
	UnschedulableAndUnresolvable
	// Error: something is wrong with the claim or class itself (a CEL
	// selector that does not compile or fails at run time, an unsupported
	// request shape, an unparsable node selector). kube-scheduler aborts
	// the pod's whole scheduling attempt on it, even if other nodes would
	// fit, so that a broken claim is noticed rather than scheduled around.
	Error
)

func (c Code) String() string {
	switch c {
	case Unschedulable:
		return "Unschedulable"
	case UnschedulableAndUnresolvable:
		return "UnschedulableAndUnresolvable"
	case Error:
		return "Error"
	}
	return fmt.Sprintf("Code(%d)", int(c))
}

// StatusError is the error type of PreFilter, Filter and Reserve. Reason
// is the text kube-scheduler 1.32 would show in the pod's condition where
// the situation exists there.
type StatusError struct {
	Code   Code
	Reason string
}

func (e *StatusError) Error() string { return e.Reason }

// CodeOf returns the Code of err, Error for an error of another type, and
// 0 for nil.
func CodeOf(err error) Code {
	if err == nil {
		return 0
	}
	var se *StatusError
	if errors.As(err, &se) {
		return se.Code
	}
	return Error
}

func unresolvable(format string, args ...any) *StatusError {
	return &StatusError{Code: UnschedulableAndUnresolvable, Reason: fmt.Sprintf(format, args...)}
}

func asError(err error) *StatusError {
	return &StatusError{Code: Error, Reason: err.Error()}
}
