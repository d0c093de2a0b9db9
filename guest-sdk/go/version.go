//go:build !caldera_abi_1_0 && !caldera_abi_next

package caldera

// abiMinor is the ABI minor version this SDK speaks: 1.1 added every hook
// beyond scoring and predicates, the enqueue event and the view fields
// minTaskMember, priorityClassName and bestEffort; 1.2 added cache_event,
// the hook of event handler modules.
//
// The tags caldera_abi_1_0 and caldera_abi_next build the SDK as it would
// be one minor earlier or later; the scheduler's compatibility tests use
// them to prove that modules of another minor keep working.
const abiMinor = 2

func declared(hooks []string) []string { return hooks }

// lastEvent is the newest event kind this minor knows; newer ones are
// ignored.
const lastEvent = eventBind
