// Package enqueue is the enqueue action: it admits pending PodGroups into
// their queues (phase Pending -> Inqueue) so that allocate considers them.
//
// As in Volcano v1.15: queues take turns in QueueOrderFn order, one job per
// turn in JobOrderFn order; a job is admitted when its PodGroup sets no
// minResources or when the plugins vote it enqueueable (JobEnqueueable), and
// the plugins are told (JobEnqueued) so that they count what it reserves.
// Every pending job of a queue is tried, whether or not an earlier one was
// refused.
//
// Left out: Volcano's ScheduleStartTimestamp bookkeeping (a metrics field our
// JobInfo does not have). The action takes no arguments.
package enqueue
