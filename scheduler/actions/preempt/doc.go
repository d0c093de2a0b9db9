// Package preempt is the preempt action: within a queue, starving jobs take
// resources from other jobs' tasks, and within a job, pending tasks take them
// from the job's own lower-ranked tasks.
//
// As in Volcano v1.15:
//   - Preemptors are the pending tasks of admitted, valid, starving
//     (JobStarving) jobs, grouped by queue (QueueOrderFn), job (JobOrderFn)
//     and task (TaskOrderFn). A pod whose preemptionPolicy is Never does not
//     preempt, nor does one whose nominated node fits it already or still has
//     a lower-priority pod terminating from an earlier preemption.
//   - Between jobs: while the job is starving, each preemptor passes
//     PrePredicate and a bounded search for nodes whose predicates fail at
//     worst with Unschedulable (UnschedulableAndUnresolvable, Error and Wait
//     rule a node out). Nodes are tried from the best score down. On each,
//     the candidates are the running or bound, preemptable tasks of other
//     jobs of the same queue (a best-effort preemptor only takes best-effort
//     tasks); ssn.Preemptable narrows them; if even all of them would not
//     make room the node is skipped; otherwise they are evicted in victim
//     order (lowest-ranked job, then task, first) until the preemptor fits
//     (the queue takes it, future-idle resources suffice, every predicate
//     passes), and the preemptor is pipelined there. Evictions on a node
//     that ends up unused are undone. The job's statement is committed if
//     the job is then pipelined (JobPipelined), otherwise discarded.
//   - Within a job: the same, one statement per task, taking only the job's
//     own tasks, stopping at the first task that cannot be placed.
//
// Arguments (under configurations, name preempt): predicateErrorCacheEnable
// (true), enableTopologyAwarePreemption (false), topologyAwarePreemptWorkerNum
// (16; accepted, the dry run is sequential here), minCandidateNodesPercentage
// (10), minCandidateNodesAbsolute (1), maxCandidateNodesAbsolute (100), and
// the feasible-node limits of the allocate package.
//
// With enableTopologyAwarePreemption, kube-scheduler's way is used instead:
// a dry run over the candidate nodes finds, per node, the smallest set of
// victims (evict in victim order until the preemptor fits, then spare the
// highest-ranked ones that are not needed), stops after the configured
// number of candidates, and picks the node whose victims have the lowest
// highest priority, then the lowest priority sum, the fewest victims, the
// latest start time.
//
// Left out: jobs with network topology are not excluded (we have none),
// node sharding, metrics, nodes that allocate found unresolvable are not
// filtered out first (the preempt predicate rules them out again). Volcano
// starts the topology-aware dry run at a random node and runs it in
// parallel; here it starts at the first feasible node and runs in order, and
// ties between equally scored nodes keep search order, so sessions are
// reproducible. Volcano's within-job pass walks starving jobs in map order;
// here in JobOrderFn order.
package preempt
