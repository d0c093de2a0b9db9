// Package backfill is the backfill action: it places best-effort tasks
// (tasks that request nothing but a pod slot), which allocate leaves alone.
//
// As in Volcano v1.15: the pending best-effort tasks of admitted, valid jobs
// whose queue exists are collected, together with best-effort tasks that an
// earlier action pipelined (those are returned to pending first), and
// served queue by queue in QueueOrderFn order, job by job in JobOrderFn
// order, task by task in TaskOrderFn order. Each task passes PrePredicate,
// then a bounded feasible-node search with the predicate plugins (no
// resource check of the action's own: the task asks for none), then scoring
// when more than one node fits. The task is allocated in the session
// directly, not through a statement, and once its job is ready every
// allocated task of the job is sent for binding. Tasks that fit nowhere get
// their per-node reasons in job.NodesFitErrors.
//
// Arguments (under configurations, name backfill): predicateErrorCacheEnable
// (default true; Volcano's backfill makes a fresh cache per task, so it has
// no visible effect), minNodesToFind, minPercentageOfNodesToFind,
// percentageOfNodesToFind (see the allocate package).
//
// Left out: node sharding, metrics. Ties between equally scored nodes go to
// the first in search order.
package backfill
