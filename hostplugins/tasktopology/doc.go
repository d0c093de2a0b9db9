// Package tasktopology is the native "task-topology" plugin: the roles of a
// job (its pods' volcano.sh/task-spec) that should share nodes, that should
// keep apart, and the order they are placed in, read from the PodGroup's
// annotations.
//
// It follows Volcano v1.15's plugin of the same name
// (pkg/scheduler/plugins/task-topology):
//
//   - Annotations: volcano.sh/task-topology-affinity and
//     volcano.sh/task-topology-anti-affinity hold groups of role names
//     ("ps,worker;chief": groups split by ";", names by ","); a group of
//     one role is about the role's own pods, a larger group about pairs of
//     roles in it. volcano.sh/task-topology-task-order lists roles, first
//     placed first. A name that no pod of the job has, or a name twice in
//     one group, makes the job's annotations unusable: the job is placed as
//     if it had none (as in Volcano), and Caldera says so in a Warning Event
//     on the PodGroup and a log line.
//   - Buckets: at session open, for every job with pending pods, the pods
//     of roles named in an affinity or anti-affinity group are put into
//     buckets, pods already on a node first (one bucket per node), then the
//     pending ones in order (the task order first, then the strongest kind
//     of rule the role is in: own anti-affinity, affinity with another
//     role, own affinity, anti-affinity with another role; then by name):
//     each goes to the bucket it has most affinity with (pods it is
//     attracted to minus pods it repels), ties to the bucket asking least
//     (milli-CPU + memory in MiB + extended resources in milli-units), and
//     to a new bucket when every bucket repels it.
//   - TaskOrder: pods in a bucket before pods in none; within a job, pods of
//     larger buckets (by pending pods) first, then older buckets, then
//     within a bucket the role order above.
//   - NodeOrder: for a pod in a bucket, on a node that could hold it
//     (idle + releasing): its bucket's pods already on the node, minus the
//     pods there of roles it has anti-affinity with, plus its bucket's
//     pending pods, less one for each pending pod that has to be left out
//     for the bucket's request to fit the node; times task-topology.weight
//     (1), times 100 over the job's largest bucket.
//   - Allocate events move a pod from its bucket's pending pods to the
//     node's count.
//
// Differences, both deterministic where Volcano is not or keeps stale
// counts: Volcano leaves out a bucket's pending pods in map order when
// scoring a node that cannot hold the whole bucket; Caldera leaves them
// out in bucket order. Volcano never takes back an allocate event's counts
// when a statement is discarded (allocate's hypernode trials discard
// statements); Caldera does, so a discarded trial does not attract later
// pods to nodes nothing runs on. Requests are compared without the "pods"
// count, which Volcano's task requests do not carry.
//
// Argument: task-topology.weight (1). Unknown keys are refused.
package tasktopology
