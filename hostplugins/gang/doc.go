// Package gang is the native "gang" plugin: a job runs only when at least
// minAvailable of its tasks (and minTaskMember of each role) can run
// together, and preemption or reclaim never breaks a running gang below that
// minimum.
//
// It follows Volcano v1.15's plugin of the same name:
//
//   - JobValid: a job fails validation when some role can no longer reach its
//     minTaskMember (reason NotEnoughPodsOfTask) or when fewer tasks are still
//     schedulable than minAvailable (reason NotEnoughTasks).
//   - JobReady: every role has its minimum and the job has minAvailable tasks
//     holding resources (pending best-effort tasks count, for the job and
//     for their role).
//   - JobPipelined: the same, counting pipelined tasks too; votes Permit or
//     Reject, never abstains.
//   - JobStarving: fewer tasks hold or wait for resources than minAvailable
//     (per-role minimums are not considered, as in Volcano's preempt).
//   - Preemptable and Reclaimable: a job gives up tasks only while it keeps
//     more than minAvailable ready tasks; the plugin always votes.
//   - JobOrder: jobs that are not ready yet go before ready ones.
//   - OnSessionClose: each job with tasks gets a PodGroup condition.
//     A job that is still not ready gets Unschedulable, reason
//     NotEnoughResources, message "<n>/<total> tasks in gang unschedulable:
//     <fit error>", where n is minAvailable less the tasks that hold resources
//     or were placed in a statement this session that was then discarded. A
//     ready job gets Scheduled, reason "tasks in gang are ready to be
//     scheduled". A job that is short only because some of its placed tasks
//     are being deleted, with nothing pending or pipelined, gets neither (as
//     in Volcano after v1.15.1, which stopped flagging such jobs).
//
// The plugin takes no arguments; any given are ignored, as Volcano ignores
// them.
//
// Left out: sub-job validity, readiness, pipelining and ordering (our core has
// no sub-jobs), the unified gang-eviction hook, which our actions do not
// call, and Volcano's scheduling metrics.
//
// To count tasks placed and then discarded, Volcano keeps each task's last
// transaction on the task; our statements do not, so the plugin follows
// allocations through the session's event handlers instead.
package gang
