// Package volumes decides what a pod's PersistentVolumeClaims allow, as
// kube-scheduler v1.32's VolumeBinding, VolumeZone and NodeVolumeLimits
// (CSI) plugins do and Volcano's predicates plugin runs them: which nodes
// fit the claims' volumes, which existing volume binds to which unbound
// WaitForFirstConsumer claim and which claim is provisioned where, how a
// node scores by the share of the chosen volumes the claims fill, and,
// once the pod is bound, the API writes that make the claims bound.
//
// A Session is opened on a snapshot's storage objects; what it reserves
// for one task (a volume taken by a claim) is seen by the later tasks of
// the session and undone when the task's placement is. The package reads
// no scheduler framework types: the predicates plugin turns its
// rejections into statuses.
package volumes
