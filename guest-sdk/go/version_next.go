//go:build caldera_abi_next

package caldera

// Built as the next minor, 1.13: it declares a hook this scheduler does not
// know, which the scheduler must leave uncalled.
const abiMinor = 13

func declared(hooks []string) []string { return append(hooks, "hook_from_abi_1_13") }

const lastEvent = eventBind
