//go:build caldera_abi_1_0

package caldera

// Built as ABI 1.0: only the hooks 1.0 had are declared.
const abiMinor = 0

func declared(hooks []string) []string {
	var out []string
	for _, h := range hooks {
		switch h {
		case "session_open", "session_close", "predicate_batch", "node_order_batch":
			out = append(out, h)
		}
	}
	return out
}

// A 1.0 module knew events 1 to 5 and failed on any other: the scheduler
// must not send it the enqueue event of 1.1.
const lastEvent = eventUnevict
