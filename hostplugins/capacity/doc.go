// Package capacity is the native "capacity" plugin: each queue states what it
// deserves (spec.deserved), what it is guaranteed (spec.guarantee) and the
// most it may hold (spec.capability); a queue may borrow idle resources
// beyond what it deserves, up to its capability, and gives them back by
// reclaim when another queue wants what it deserves. With enableHierarchy the
// queues form a tree under the root queue (spec.parent, the root when
// unset), and each child is held within its parent.
//
// It follows Volcano v1.15's plugin of the same name
// (pkg/scheduler/plugins/capacity/capacity.go).
//
// # Accounting
//
// Every queue with jobs (every queue, in a tree) gets allocated, request,
// inqueue and elastic as the proportion plugin counts them; in a tree a job
// counts in its queue and in every ancestor. Flat, a queue's real capability
// is the cluster less every queue's guarantee, plus its own guarantee,
// capped by its capability (a capability without cpu or memory leaves that
// dimension unbounded); its deserved is spec.deserved capped by the real
// capability and raised to its guarantee.
//
// In a tree the root's capability is unbounded when it states none (users
// bound resources by creating queues, not by the root), and its guarantee and
// deserved are its children's sums. From the root down, a child without a
// cpu, memory or scalar capability takes its parent's; its real capability
// is its parent's less the children's guarantees, plus its own guarantee,
// capped by its capability; its deserved is raised to its guarantee. A child
// whose capability exceeds its parent's, and children that deserve or are
// guaranteed more than their parent together, are logged once: the parent's
// bounds still hold them, as in Volcano.
//
// A queue's share is its largest allocated/deserved ratio; a queue that
// deserves nothing is best effort, with share 1.
//
// # Hooks
//
//   - QueueOrder: higher priority first; flat, then the smaller share (a
//     queue that deserves something before a best-effort one at equal
//     share). In a tree, a queue without children before one with; two
//     leaves are compared by their ancestors just below the deepest one they
//     share.
//   - VictimQueueOrder (tree only): victims come first from the queue that
//     shares the deeper ancestor with the reclaimer's.
//   - Allocatable: the queue is open and, with the task, it and every
//     ancestor stay within their real capability in what the task asks for.
//     In a tree only queues without children take tasks.
//   - Preemptive: the tasks fit the queue's real capability, and with them the
//     queue holds at most what it deserves in some dimension they ask for,
//     dimensions it neither holds nor deserves left out. With
//     ancestorReclaimLevel N (tree only), an ancestor up to N levels up that
//     passes that test is enough.
//   - Reclaimable: in the session's victim order, a victim is taken when it
//     shares a resource with the reclaimer (pods aside), its queue keeps its
//     guarantee without it, and its queue deserves nothing the victim holds
//     or holds more than it deserves in some dimension the victim gives back
//     (and the queue deserves). With ancestorReclaimLevel N, each of the
//     victim queue's ancestors up to N levels that the reclaimer's queue
//     does not share at that level must pass the same test, and a victim
//     whose queue deserves nothing it holds is spared when the two queues
//     share a non-root ancestor within N levels and the reclaimer's queue
//     deserves nothing the reclaimer asks for.
//   - JobEnqueueable: rejected when the queue is closed or, in a tree, has
//     children; permitted without minResources; otherwise permitted when
//     minResources plus allocated and inqueue, less elastic, fits the real
//     capability of the queue and every ancestor, in the dimensions
//     minResources asks for. A refusal records the Normal Unschedulable
//     Event "queue resource quota insufficient: insufficient cpu" on the
//     PodGroup, as Volcano words it.
//   - JobEnqueued: the admitted job's minResources (less gated pods) join the
//     inqueue of its queue and every ancestor.
//   - Event handlers charge a placed task to its queue and every ancestor;
//     only the queue's own share is brought up to date, as in Volcano.
//
// # A hierarchy that cannot be used
//
// A parent that does not exist, parents that form a cycle, a missing root
// queue, or a job in a queue that has children make the whole tree unusable
// for the session, as in Volcano: the plugin admits, places and reclaims
// nothing. Caldera says why: the reason is logged once, and every PodGroup
// with pending pods gets a Warning Unschedulable Event naming it.
//
// # Arguments
//
//   - ancestorReclaimLevel (integer, default 0, negative refused).
//   - capacity.DynamicResourceAllocationEnable and
//     capacity.DRAConsumableCapacityEnable: Volcano's per-DeviceClass queue
//     quotas of dynamically allocated devices. Caldera does not keep them:
//     true is refused at load, false accepted. A queue naming deviceclass/
//     quantities is logged once; those quantities bound nothing.
//
// Left out, as Volcano v1.15 leaves them off by default: the queue
// allocation gate (feature SchedulingGatesQueueAdmission), and the
// simulation hooks that Volcano's topology-aware preemption dry-runs use.
package capacity
