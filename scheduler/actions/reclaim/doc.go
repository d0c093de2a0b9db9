// Package reclaim is the reclaim action: starving jobs take back resources
// that other queues hold beyond what the plugins let them keep.
//
// As in Volcano v1.15:
//   - Queues of admitted, valid jobs take turns in QueueOrderFn order; an
//     overused queue (Overused) reclaims nothing. Within a queue the starving
//     jobs (JobStarving) go in JobOrderFn order, their pending tasks in
//     TaskOrderFn order, while the job is starving.
//   - A task whose pod says preemptionPolicy Never, whose queue may not
//     reclaim for it (Preemptive) or that fails PrePredicate is passed over.
//   - Otherwise a bounded search finds nodes whose predicates fail at worst
//     with Unschedulable. On each in turn, the candidates are the running,
//     preemptable tasks of jobs in other, reclaimable queues; ssn.Reclaimable
//     narrows them; if even all of them would not make room the node is
//     skipped; else they are evicted in victim order (VictimQueueOrderFn
//     across queues, then the lowest-ranked job and task) until the task's
//     request fits the node's future idle resources, and the task is
//     pipelined there. Evictions on a node that ends up unused are undone.
//   - The job's statement is committed if the job is then pipelined
//     (JobPipelined), otherwise discarded.
//
// Arguments (under configurations, name reclaim): predicateErrorCacheEnable
// (default true; Volcano makes a fresh cache per task, so it has no visible
// effect) and the feasible-node limits of the allocate package.
//
// Left out: node sharding, metrics, and the pre-filtering of nodes that
// allocate found unresolvable (the reclaim predicate rules them out again).
package reclaim
