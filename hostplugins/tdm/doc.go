// Package tdm is the native "tdm" plugin (time-division multiplexing):
// nodes of a revocable zone lend themselves to preemptable work during the
// zone's daily time window, and take it back outside it.
//
// It follows Volcano v1.15's plugin of the same name
// (pkg/scheduler/plugins/tdm/tdm.go):
//
//   - A node is in zone Z when its label volcano.sh/revocable-zone is Z;
//     the argument tdm.revocable-zone.Z gives the zone's window, "HH:MM-HH:MM"
//     in the scheduler's local time (an end not after the start ends the
//     next day). As in Volcano the window is reckoned from today's start
//     only: at 01:00 a window 22:00-02:00 is closed, yesterday's evening
//     not counted. A pod may use revocable nodes when its annotation
//     volcano.sh/revocable-zone is "*", or, without that annotation, when its
//     volcano.sh/preemptable annotation is true.
//   - Predicate: a node in no zone fits; a node whose zone has no window, or
//     whose window is not open now, does not (UnschedulableAndUnresolvable);
//     in an open window only pods that may use revocable nodes fit.
//   - NodeOrder: such a pod scores 100 on a node of an open zone; a node of a
//     closed zone fails the scoring call with the reason, as Volcano's does.
//   - Preemptable: a preemptor that is preemptable or may use revocable nodes
//     takes nothing (its vote vetoes); any other takes Running preemptable
//     pods on nodes in no zone, at most its budget per job (below).
//   - VictimTasks: at most once per tdm.evict.period (1m), the Running
//     preemptable pods on nodes of zones whose window is closed, at most the
//     budget per job; the shuffle action evicts them.
//   - JobOrder: jobs that are not preemptable first. JobPipelined: permit a
//     job with enough tasks pipelined or ready for its minimum, reject
//     others. JobStarving: a job that is not preemptable and has pending
//     tasks.
//
// A job's budget is its PodGroup's annotation volcano.sh/jdb-min-available
// (running tasks beyond it may go), else volcano.sh/jdb-max-unavailable
// (that many may be unavailable, counting those not running), each an
// integer or a percentage of the job's tasks; without either, one task.
//
// A window that does not parse, or an argument that is not a string, is
// refused at load (Volcano panics on a value that is not a string and
// treats a malformed window as closed).
package tdm
