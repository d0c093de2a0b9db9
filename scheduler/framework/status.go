package framework

import "strings"

// Code is the outcome of a predicate-like hook.
type Code int

const (
	// Success: the task may go there. A nil *Status means the same.
	Success Code = iota
	// Error: the plugin failed; the node is treated as unfit for this task and
	// the failure is logged.
	Error
	// Unschedulable: the node does not fit now, but evicting tasks from it
	// might make room, so preempt and reclaim still consider it.
	Unschedulable
	// UnschedulableAndUnresolvable: the node can never fit this task (selector,
	// taint, affinity); preempt and reclaim skip it.
	UnschedulableAndUnresolvable
	// Wait: the task should wait; nothing is placed this session.
	Wait
	// Skip: the plugin has nothing to say for this task.
	Skip
)

var codeNames = [...]string{"Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable", "Wait", "Skip"}

func (c Code) String() string {
	if int(c) < len(codeNames) {
		return codeNames[c]
	}
	return "Unknown"
}

// Status is what a predicate-like hook says. The framework, not the plugin,
// fills in Plugin.
type Status struct {
	Code    Code
	Reasons []string
	Plugin  string
}

// NewStatus builds a status with reasons.
func NewStatus(code Code, reasons ...string) *Status { return &Status{Code: code, Reasons: reasons} }

// IsSuccess reports whether the status lets the task through.
func (s *Status) IsSuccess() bool { return s == nil || s.Code == Success || s.Code == Skip }

// Message joins the reasons.
func (s *Status) Message() string {
	if s == nil {
		return ""
	}
	return strings.Join(s.Reasons, ", ")
}

// Error lets a Status be returned where an error is expected.
func (s *Status) Error() string { return s.Message() }

// Unresolvable reports whether evicting tasks cannot help.
func (s *Status) Unresolvable() bool { return s != nil && s.Code == UnschedulableAndUnresolvable }
