package reload

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"k8s.io/klog/v2"

	"github.com/caldera-scheduler/caldera/abi"
	"github.com/caldera-scheduler/caldera/runtime"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Tier-entry arguments that tune a Wasm plugin's sandbox; they are read by
// the host, and passed on to the module with the others.
const (
	argMemoryLimitPages = "wasm.memoryLimitPages"
	argCallTimeout      = "wasm.callTimeout"
	argIgnorable        = "wasm.ignorable"
	argSHA256           = "wasm.sha256"
	// argImage names the module by OCI reference instead of a file of the
	// plugin directory (runtime/ocimodule).
	argImage = "wasm.image"
)

// module is one loaded version of a plugin's module. Policies share a
// module while its file and sandbox limits are unchanged; it is closed when
// the last policy holding it retires.
type module struct {
	// path is the module's file, or for a pulled module its image pinned
	// by manifest digest; image is set for pulled modules only.
	name, path, digest, image string
	plugin                    *runtime.Plugin
	limits                    runtime.Limits
	// args are the tier entry's arguments the module was self-tested with:
	// a module is only tried with the arguments it serves with.
	args framework.Arguments
	// refs counts the policies and candidates holding the module; guarded
	// by Reloader.mu.
	refs int
	// served is set once a published policy has used the module, so that
	// unloading it is worth an Info line.
	served bool
}

// sandboxArgs are the wasm.* arguments there are; any other is refused,
// lest a misspelt limit leave the default in force unnoticed.
var sandboxArgs = []string{argMemoryLimitPages, argCallTimeout, argIgnorable, argSHA256, argImage}

// sandbox reads the wasm.* arguments of a tier entry.
func sandbox(name string, args framework.Arguments) (runtime.Options, runtime.Policy, error) {
	opts := runtime.Options{Name: name, Limits: runtime.DefaultLimits(), Log: GuestLog(name)}
	var policy runtime.Policy
	for key := range args {
		if strings.HasPrefix(key, "wasm.") && !slices.Contains(sandboxArgs, key) {
			return opts, policy, fmt.Errorf("unknown sandbox argument %s: expected one of %s", key, strings.Join(sandboxArgs, ", "))
		}
	}
	if _, given := args[argMemoryLimitPages]; given {
		pages := -1
		if err := args.Int(argMemoryLimitPages, &pages); err != nil {
			return opts, policy, err
		}
		if pages < 1 || pages > 65536 {
			return opts, policy, fmt.Errorf("%s: expected 1 to 65536 pages of 64 KiB, got %v", argMemoryLimitPages, args[argMemoryLimitPages])
		}
		opts.Limits.MemoryLimitPages = uint32(pages)
	}
	var timeout string
	if err := args.String(argCallTimeout, &timeout); err != nil {
		return opts, policy, err
	}
	if timeout != "" {
		d, err := time.ParseDuration(timeout)
		if err != nil {
			return opts, policy, fmt.Errorf("%s: %w", argCallTimeout, err)
		}
		if d < 0 {
			return opts, policy, fmt.Errorf("%s: %s is negative: expected a duration such as 1s, or 0 for no deadline (trusted modules only)", argCallTimeout, timeout)
		}
		opts.Limits.CallTimeout = d
	}
	if err := args.Bool(argIgnorable, &policy.Ignorable); err != nil {
		return opts, policy, err
	}
	if err := args.String(argSHA256, &opts.SHA256); err != nil {
		return opts, policy, err
	}
	var image string
	if err := args.String(argImage, &image); err != nil {
		return opts, policy, err
	}
	return opts, policy, nil
}

// takes reports whether the module, as loaded and self-tested, serves a
// tier entry with these limits and arguments.
func (m *module) takes(limits runtime.Limits, args framework.Arguments) bool {
	sameArgs := len(m.args) == 0 && len(args) == 0 || reflect.DeepEqual(m.args, args)
	return m.limits == limits && sameArgs
}

// CheckHooks refuses a module that does not declare session_open, which
// carries each session's view and without which every session would fail
// to open it; and a module that declares no hook this scheduler would call
// besides opening and closing the session: most likely a module built
// without its policy registered, which would silently change nothing.
// Every reload checks its new modules so, and so does `caldera plugin
// validate`.
func CheckHooks(p *runtime.Plugin) error {
	if !p.Implements(abi.HookSessionOpen) {
		return fmt.Errorf("the module does not declare session_open, which opens every session with its view (declared: %q)", p.Descriptor().Hooks)
	}
	for _, name := range p.Descriptor().Hooks {
		h, ok := abi.HookByName(name)
		if ok && h != abi.HookSessionOpen && h != abi.HookSessionClose {
			return nil
		}
	}
	return fmt.Errorf("the module declares no hook this scheduler calls (declared: %q): did its main package register a policy?", p.Descriptor().Hooks)
}

// hold takes a reference on each module.
func (r *Reloader) hold(mods ...*module) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range mods {
		m.refs++
	}
}

// release gives back a reference on each module and closes those no policy
// or candidate holds any more.
func (r *Reloader) release(mods []*module) {
	var unused []*module
	r.mu.Lock()
	for _, m := range mods {
		if m.refs--; m.refs == 0 {
			unused = append(unused, m)
			r.live--
		}
	}
	r.mu.Unlock()
	for _, m := range unused {
		if err := m.plugin.Close(context.Background()); err != nil {
			klog.ErrorS(err, "Closing a Wasm module", "plugin", m.name, "sha256", m.digest)
		}
		if m.served {
			klog.InfoS("Unloaded Wasm module: no session uses it any more", "plugin", m.name, "sha256", m.digest)
		}
	}
}

// LiveModules returns how many loaded modules are open: those of the policy
// in service, of policies still finishing a session, and of a candidate
// being checked.
func (r *Reloader) LiveModules() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.live
}
