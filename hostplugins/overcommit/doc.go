// Package overcommit is the native "overcommit" plugin: it admits (enqueues)
// jobs only while the cluster, inflated by an overcommit factor, has room for
// their minimum resources next to what is in use and what admitted jobs still
// claim. It keeps the number of pending pods in check when the cluster is
// full, while letting a little more in than fits so that nodes do not idle
// between jobs.
//
// It follows Volcano v1.15's plugin of the same name.
//
// Arguments:
//
//	overcommit-factor  number, default 1.2. How far beyond its allocatable
//	                   resources the cluster may be committed. A value below
//	                   1 is replaced by the default, as Volcano does; a value
//	                   that is not a number is a configuration error.
//
// At session open the plugin computes:
//
//   - idle: the session's allocatable total times the factor, less what the
//     nodes' tasks use;
//   - inqueue: the spec.minResources of Inqueue PodGroups, plus, for Running
//     PodGroups holding at least minMember tasks, the part of minResources
//     their tasks do not cover yet (both less what pods held back by
//     scheduling gates request).
//
// Hooks:
//
//   - JobEnqueueable: a job without minResources is permitted; otherwise it
//     is permitted when inqueue plus its minResources fits idle in the
//     dimensions minResources asks for, and rejected if not, with a Normal
//     Unschedulable Event on the PodGroup as Volcano records it: "resource
//     in cluster is overused: overused cpu".
//   - JobEnqueued: an admitted job's minResources join inqueue, so that the
//     next job in the session sees them.
package overcommit
