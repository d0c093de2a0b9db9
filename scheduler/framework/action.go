package framework

import (
	"fmt"
	"sort"
)

// Action is one step of a session (enqueue, allocate, backfill, preempt,
// reclaim). A new instance is made for every session from its configured
// arguments.
type Action interface {
	Name() string
	Execute(ssn *Session)
}

// ActionFactory makes an action from its arguments (the configuration's
// `configurations` entry of the same name). It is also called once when the
// configuration is loaded, to report bad arguments early.
type ActionFactory func(args Arguments) (Action, error)

// ActionRegistry maps action names to factories; like Registry, it is a value.
type ActionRegistry map[string]ActionFactory

// Register adds a factory; a name registered twice is an error.
func (r ActionRegistry) Register(name string, f ActionFactory) error {
	if _, dup := r[name]; dup {
		return fmt.Errorf("action %q is already registered", name)
	}
	r[name] = f
	return nil
}

// Names returns the registered names, sorted.
func (r ActionRegistry) Names() []string {
	out := make([]string, 0, len(r))
	for n := range r {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Validator checks configuration names and arguments against registries; it
// implements conf.Validator.
type Validator struct {
	Plugins Registry
	Actions ActionRegistry
}

// ValidateAction reports an unknown action or bad arguments.
func (v Validator) ValidateAction(name string, args map[string]any) error {
	f, ok := v.Actions[name]
	if !ok {
		return unknownName("action", name, VolcanoActions, v.Actions.Names())
	}
	_, err := f(args)
	return err
}

// ValidateHierarchy reports a plugin that does not take enableHierarchy:
// one that is not a HierarchyTaker, such as a Wasm module serving a
// native plugin's name.
func (v Validator) ValidateHierarchy(name string, args map[string]any) error {
	f, ok := v.Plugins[name]
	if !ok {
		return unknownName("plugin", name, VolcanoPlugins, v.Plugins.Names())
	}
	p, err := f(args)
	if err != nil {
		return err
	}
	if _, ok := p.(HierarchyTaker); !ok {
		return fmt.Errorf("plugin %q is not served by Caldera's native %s plugin, and only the native one follows the queue tree: set it to false or remove it", name, name)
	}
	return nil
}

// ValidatePlugin reports an unknown plugin or bad arguments.
func (v Validator) ValidatePlugin(name string, args map[string]any) error {
	f, ok := v.Plugins[name]
	if !ok {
		return unknownName("plugin", name, VolcanoPlugins, v.Plugins.Names())
	}
	_, err := f(args)
	return err
}
