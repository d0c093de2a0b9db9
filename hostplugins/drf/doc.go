// Package drf is the native "drf" plugin: Dominant Resource Fairness between
// jobs. A job's share is its largest fraction of any cluster resource it
// holds (cpu, memory, GPUs, ...); the job with the smaller share is served
// first, and may preempt a job whose share, after losing the task, would
// still be at least its own.
//
// It follows Volcano v1.15's plugin of the same name:
//
//   - Shares are measured against the allocatable total of the session's
//     nodes, over the dimensions that total holds (a dimension of zero is not
//     measured), counting the tasks that hold resources (allocated, binding,
//     bound, running).
//   - JobOrder: the job with the smaller share goes first.
//   - Preemptable: with the preemptor's job charged for the preemptor, a
//     candidate is allowed when its job, less this candidate and every
//     earlier candidate of the same job in the list, would keep a share at
//     least the preemptor's (within 1e-6). The plugin always votes.
//   - Event handlers keep each job's share current as tasks are placed and
//     evicted, so later decisions of the session see them.
//
// The plugin takes no arguments; any given are ignored, as Volcano ignores
// them.
//
// # Hierarchical DRF
//
// With enableHierarchy, queues are placed in a tree by their annotations
// volcano.sh/hierarchy ("root/eng/dev") and volcano.sh/hierarchy-weights
// ("100/50/50"; a weight missing, not a number or below 1 counts as 1, and a
// level's weight is the one it was first created with); every job is a leaf
// under its queue's path, and a queue without the annotation puts its jobs
// right under the root. As in Volcano:
//
//   - A job is saturated when it holds all it asks for in some resource, or
//     asks for a resource of which the cluster has nothing left. A level's
//     allocation sums its children's, each child that is not saturated
//     scaled to the smallest dominant share among them; a level is saturated
//     when all its children are. The tree is brought up to date whenever a
//     task is placed or given back.
//   - QueueOrder: walking both queues' paths down from the root while the
//     levels tie, a level that is not saturated goes first, else the smaller
//     dominant share over weight.
//   - Reclaimable: with the reclaimer's job charged for its task, each
//     candidate is weighed alone (its job less the candidate); it is a victim
//     when the reclaimer's queue would then go before the candidate's.
//
// Without enableHierarchy the plugin has no say in queue order and reclaim.
// Volcano's job-share metrics are left out.
package drf
