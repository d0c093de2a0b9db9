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
// Left out: hierarchical DRF (enableHierarchy, with its queue order and
// reclaim hooks over queue hierarchy annotations), which our core's queues do
// not model; the configuration loader refuses enableHierarchy: true.
// Volcano's job-share metrics are left out too.
package drf
