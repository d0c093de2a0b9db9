// Package priority is the native "priority" plugin: it puts higher-priority
// jobs and tasks first, lets a job preempt only lower-priority work, and says
// a job is starving while any of its tasks lacks resources.
//
// It follows Volcano v1.15's plugin of the same name, hook for hook:
//
//   - JobOrder: the job with the higher priority (from its PodGroup's
//     priority class) goes first.
//   - TaskOrder: within a job, the task with the higher pod priority goes
//     first.
//   - Preemptable: a task of another job may be taken only if that job's
//     priority is strictly lower than the preemptor's job; a task of the
//     preemptor's own job only if the task's priority is strictly lower. The
//     plugin always votes, so an empty answer vetoes preemption in its tier.
//   - JobStarving: a job is starving while fewer of its tasks hold or wait for
//     resources (ready plus pipelined) than it has tasks, whatever its
//     minAvailable says; this lets preempt serve elastic jobs beyond their gang
//     minimum.
//
// The plugin takes no arguments; any given are ignored, as Volcano ignores
// them.
//
// Left out: sub-job ordering (Volcano's subJobOrder; our core has no sub-jobs)
// and the unified gang-eviction hook, which our actions do not call.
// Volcano's priority plugin has no reclaim or pipelined hook, so neither does
// this one: reclaim is decided by queue fairness, not priority.
package priority
