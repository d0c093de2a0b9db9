package caldera

// Plugin is a policy. Its Name is informational: the scheduler's
// configuration names a module by its file name.
type Plugin interface {
	Name() string
}

// SessionOpener prepares per-session state (shares, indexes) once the view
// has arrived.
type SessionOpener interface {
	OnSessionOpen(s *Session) error
}

// SessionCloser releases per-session state.
type SessionCloser interface {
	OnSessionClose(s *Session)
}

// Code is a hook's status, shared with the scheduler's native framework.
type Code int32

const (
	Success                      Code = 0
	Error                        Code = 1
	Unschedulable                Code = 2
	UnschedulableAndUnresolvable Code = 3
)

// Verdict is one node's answer to a predicate.
type Verdict struct {
	Code   Code
	Reason string
}

// Pass is the verdict of a node the task may use.
var Pass = Verdict{}

// Reject returns an Unschedulable verdict with a reason in kube-scheduler's
// style ("node(s) had untolerated taint {spot: true}").
func Reject(reason string) Verdict { return Verdict{Code: Unschedulable, Reason: reason} }

var registered Plugin

// Register makes p the module's policy. Call it from main's init or main.
func Register(p Plugin) { registered = p }
