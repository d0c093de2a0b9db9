//go:build !caldera_abi_1_0 && !caldera_abi_1_2 && !caldera_abi_next

package caldera

// abiMinor is the ABI minor version this SDK speaks: 1.1 added every hook
// beyond scoring and predicates, the enqueue event and the view fields
// minTaskMember, priorityClassName and bestEffort; 1.2 added cache_event,
// the hook of event handler modules; 1.3 the descriptor's undoEvents (the
// SDK undoes a session's events when the session closes); 1.4 the view
// fields of the rules that depend on other pods (tasks' pod affinity,
// spread constraints, images; nodes' images and other pods; namespaces);
// 1.5 session_open's scheduler version and pre_predicate's domain rules;
// 1.6 session_close's fit errors; 1.7 queues' parent, deserved and
// reclaimable; 1.8 evictable, the victim filter of gangpreempt and
// gangreclaim; 1.9 the view's hypernodes and jobs' network topology,
// hyper_node_order and hyper_node_gradient, node_order_batch's
// jobHyperNode; 1.10 the scheduler's volume and device checks for a
// ClaimChecker (predicate_batch's claims) and the view's task claims and
// CSI volume limits; 1.11 session_open deltas that keep runs of the held
// lists whose objects moved; 1.12 allocate (an Allocator refuses a
// placement or gives the pod bind annotations) and the view's GPU sharing
// cards and requests.
//
// The tags caldera_abi_1_0, caldera_abi_1_2 and caldera_abi_next build the
// SDK as it would be at an earlier minor or the next; the scheduler's
// compatibility tests use them to prove that modules of another minor keep
// working.
const abiMinor = 12

func declared(hooks []string) []string { return hooks }

// lastEvent is the newest event kind this minor knows; newer ones are
// ignored.
const lastEvent = eventBind
