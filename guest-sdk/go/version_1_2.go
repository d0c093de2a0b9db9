//go:build caldera_abi_1_2

package caldera

// Built as ABI 1.2: the descriptor does not say undoEvents, so the
// scheduler resends every object the previous session's events changed;
// hooks added later (evictable, 1.8; hyper_node_order and
// hyper_node_gradient, 1.9) are not declared.
const abiMinor = 2

func declared(hooks []string) []string {
	var out []string
	for _, h := range hooks {
		switch h {
		case "evictable", "hyper_node_order", "hyper_node_gradient", "allocate":
		default:
			out = append(out, h)
		}
	}
	return out
}

const lastEvent = eventBind
