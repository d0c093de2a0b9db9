// Package proportion is the native "proportion" plugin: it divides the
// cluster between queues by weight, within each queue's capability and above
// its guarantee, and holds each queue to its share when placing, admitting
// and reclaiming work.
//
// It follows Volcano v1.15's plugin of the same name.
//
// # Deserved shares
//
// At session open every queue with jobs gets:
//
//   - allocated: what its tasks hold (allocated, binding, bound, running);
//   - request: allocated plus what its pending tasks ask for;
//   - inqueue: what its admitted jobs still have a claim on, that is the part
//     of spec.minResources their allocated tasks do not cover, for Inqueue
//     PodGroups and for Running ones that hold at least minMember tasks
//     (less what pods held back by scheduling gates request);
//   - elastic: what its jobs hold beyond their minResources;
//   - realCapability: the cluster less every queue's guarantee, plus its
//     own guarantee, capped by its capability (a capability without cpu or
//     memory leaves that dimension unbounded).
//
// Deserved is then found by water-filling: in each round, what is left of
// the cluster is handed out in proportion to the weights of the queues still
// asking, each queue's deserved capped by its realCapability and its request
// and raised to its guarantee. A queue leaves the rounds once its request is
// met or a round gives it nothing; the rounds stop when nothing is left, or a
// round changes nothing. A queue's share is its largest allocated/deserved
// ratio over the dimensions it deserves.
//
// # Hooks
//
//   - QueueOrder: higher queue priority first, then the smaller share.
//   - Overused: deserved fits within allocated in every dimension.
//   - Allocatable: the queue is open and allocated plus the task stays within
//     deserved in the dimensions the task asks for.
//   - Preemptive: the same for a set of tasks.
//   - Reclaimable: candidates are taken, in order, from queues while their
//     remaining allocation exceeds deserved in some dimension.
//   - JobEnqueueable: a job is rejected when its queue is closed; a job
//     without minResources is permitted; otherwise the job is permitted when
//     minResources plus the queue's allocated and inqueue, less its elastic,
//     fits realCapability in the dimensions minResources asks for. A job
//     refused for its queue's room gets a Normal Unschedulable Event on its
//     PodGroup, "queue resource quota insufficient: insufficient cpu", as
//     Volcano records it.
//   - JobEnqueued: an admitted job's minResources (less gated pods) join its
//     queue's inqueue, so the next job in the session sees them.
//   - Event handlers keep each queue's allocated and share current.
//
// A queue whose status states no state at all counts as open: the simulator
// builds queues from manifests that need not carry a status.
//
// Reserving inqueue resources on JobEnqueued rather than on JobEnqueueable
// follows Volcano after v1.15.1: a job that another plugin rejects no longer
// shrinks its queue's room.
//
// The plugin takes no arguments; any given are ignored, as Volcano ignores
// them.
//
// Left out: hierarchical queues (enableHierarchy, which Volcano, and
// Caldera, serve with the capacity plugin), the
// simulation hooks that Volcano's preemption dry-runs use
// (SimulateAllocatable, SimulateAddTask, SimulateRemoveTask and the
// PrePredicate that snapshots state for them), and the queue metrics.
package proportion
