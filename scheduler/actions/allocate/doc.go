// Package allocate is the allocate action: it places the pending tasks of
// admitted jobs on nodes, gang by gang.
//
// As in Volcano v1.15:
//   - Queues take turns in QueueOrderFn order and an overused queue
//     (Overused) sits out; each turn serves the queue's first job in
//     JobOrderFn order, then the queue goes back into the order with its new
//     share.
//   - Jobs still Pending are skipped when an enqueue action is configured
//     (before or after allocate, as Volcano's EnabledActionMap), and
//     admitted on the spot (Inqueue) when none is; jobs that fail JobValid
//     or whose queue is unknown are skipped.
//   - A job's pending tasks, best-effort ones excepted (backfill places
//     those), are tried in TaskOrderFn order. For each: the queue must take it
//     (Allocatable); a role that already failed to fit is not tried again;
//     PrePredicate; then a bounded search for feasible nodes starting where
//     the previous search stopped (Volcano's PredicateNodes: future-idle
//     resources first, then every predicate plugin; the pod's nominated node
//     is tried alone first), scoring (node order, map/reduce, batch, best
//     node), preferring nodes whose idle resources fit over nodes that only
//     fit once releasing tasks are gone (pipelined).
//   - The job's decisions go into one Statement. As soon as the job is ready
//     (JobReady) the statement is committed, binding its tasks, and the job
//     rejoins its queue if it has tasks left. A job that is not ready but
//     pipelined (JobPipelined) keeps its decisions in the session without
//     binding them; otherwise they are discarded: a gang of 3 with room for
//     2 binds nothing.
//   - A task that fits nowhere gets, in job.NodesFitErrors, the reason each
//     node gave; when the job can no longer reach its minimum without that
//     task's role, the job's turn ends.
//
// Arguments (under configurations, name allocate): predicateErrorCacheEnable
// (default true), and the feasible-node limits minNodesToFind (100),
// minPercentageOfNodesToFind (5), percentageOfNodesToFind (0 = adaptive),
// which Volcano takes as the command-line flags --minimum-feasible-nodes,
// --minimum-percentage-nodes-to-find and --percentage-nodes-to-find.
//
//   - A job with a network topology in hard mode (soft mode is hard up to
//     the cluster top by now) is placed within one hypernode (topology.go):
//     the plugins' gradients of hypernodes are tried lowest tier first, the
//     job is placed on trial in each hypernode of a gradient (and in the
//     gradients within it) and undone, and the best scored trial of the
//     first gradient where any succeeds is made again and kept. The job's
//     allocated hypernode becomes the lowest holding everything it placed.
//
//   - A job with sub-group policies is placed sub-job by sub-job
//     (subjobs.go).
//
// Left out: nominated hypernodes, scheduling-gate removal
// for queue admission (a gated pod is simply not placed), node sharding,
// metrics. Ties between equally scored nodes, and hypernodes, go to the
// first in search (name) order rather than a random one, so sessions are
// reproducible.
package allocate
