//go:build caldera_abi_1_2

package caldera

// Built as ABI 1.2: the descriptor does not say undoEvents, so the
// scheduler resends every object the previous session's events changed.
const abiMinor = 2

func declared(hooks []string) []string { return hooks }

const lastEvent = eventBind
