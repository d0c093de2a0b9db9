// Package nodegroup is the native "nodegroup" plugin: a queue's
// spec.affinity binds its jobs to, or keeps them from, groups of nodes
// labelled volcano.sh/nodegroup-name.
//
// It follows Volcano v1.15's plugin of the same name
// (pkg/scheduler/plugins/nodegroup):
//
//   - Predicate: a node without the label fits only when strict is false and
//     the job's queue has no affinity; a labelled node fits only when the
//     queue has affinity and the node's group is in its required or
//     preferred affinity and not in its required anti-affinity, or is in its
//     preferred anti-affinity (which, as in Volcano, admits). A failure is
//     UnschedulableAndUnresolvable, with Volcano's reasons.
//   - NodeOrder: a labelled node scores 100 when its group is required, plus
//     50 when it is preferred; with enablePreferredOrder the preferred bonus
//     is 50 × (n − i) / n for the group at index i of n preferred groups. A
//     group in the preferred anti-affinity scores -1.
//   - With enableHierarchy a queue without affinity takes that of its
//     nearest ancestor that has one (spec.parent, else the queue "root");
//     a missing parent or a cycle ends the walk, logged.
//
// Arguments: strict (true), enablePreferredOrder (false).
package nodegroup
