package caldera

// Plugin is a policy. Its Name is informational: the scheduler's
// configuration names a module by its file name.
type Plugin interface {
	Name() string
}

// ArgumentDeclarer is implemented by a plugin that declares the
// configuration arguments it reads. The module's descriptor carries them and
// `caldera plugin inspect` prints them; the scheduler does not check a
// configuration against them. Declare them from the table the plugin reads
// its arguments with, so that the two cannot drift.
type ArgumentDeclarer interface {
	DeclaredArguments() []ArgumentSpec
}

// ArgumentSpec declares one argument: its name as the configuration spells
// it, its Type (ArgBool, ArgInt, ArgFloat or ArgString) and the value the
// plugin uses when the configuration leaves it out: a bool, an int or
// int64, a float64 or a string. Any other Default is sent as nil (no
// default).
type ArgumentSpec struct {
	Name, Type string
	Default    any
}

// The types of an ArgumentSpec.
const (
	ArgBool   = "bool"
	ArgInt    = "int"
	ArgFloat  = "float"
	ArgString = "string"
)

// SessionOpener prepares per-session state (shares, indexes) once the view
// has arrived.
type SessionOpener interface {
	OnSessionOpen(s *Session) error
}

// SessionCloser releases per-session state and sets PodGroup conditions.
// OnSessionClose sees the view with every placement of the session, those
// made after the last hook call included; a plugin without it is spared
// applying those.
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
func Register(p Plugin) {
	registered = p
	impl = implementationOf(p)
}
