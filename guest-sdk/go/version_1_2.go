//go:build caldera_abi_1_2

package caldera

// Built as ABI 1.2: the descriptor does not say undoEvents, so the
// scheduler resends every object the previous session's events changed;
// hooks added later (evictable, 1.8) are not declared.
const abiMinor = 2

func declared(hooks []string) []string {
	var out []string
	for _, h := range hooks {
		if h != "evictable" {
			out = append(out, h)
		}
	}
	return out
}

const lastEvent = eventBind
