//go:build caldera_abi_next

package caldera

// Built as the next minor, 1.12: it declares a hook this scheduler does not
// know, which the scheduler must leave uncalled.
const abiMinor = 12

func declared(hooks []string) []string { return append(hooks, "hook_from_abi_1_12") }

const lastEvent = eventBind
