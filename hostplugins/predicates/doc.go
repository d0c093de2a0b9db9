// Package predicates decides whether a task may go on a node, as Volcano
// v1.15's predicates plugin does, with kube-scheduler's rules and reason
// strings for the filters it implements. It runs natively, without
// k8s.io/kubernetes: the rules come from k8s.io/component-helpers.
//
// Filters, in Volcano's order, and what a rejection says:
//
//	NodeUnschedulable  spec.unschedulable, unless the pod tolerates the
//	                   node.kubernetes.io/unschedulable:NoSchedule taint
//	                   UnschedulableAndUnresolvable "node(s) were unschedulable"
//	NodeAffinity       spec.nodeSelector and required node affinity
//	                   UnschedulableAndUnresolvable "node(s) didn't match Pod's node affinity/selector"
//	TaintToleration    the first NoSchedule or NoExecute taint the pod does not tolerate
//	                   UnschedulableAndUnresolvable "node(s) had untolerated taint {key: value}"
//	resource fit       the task's InitResreq against the node's future idle
//	                   (idle + releasing - pipelined), as Volcano's allocate
//	                   action checks it before calling the predicates
//	                   Unschedulable "Insufficient <first short dimension>"
//	pod count          the node already holds as many pods as its allocatable "pods"
//	                   Unschedulable "node(s) pod number exceeded" (Volcano's words;
//	                   kube-scheduler says "Too many pods")
//	NodePorts          a requested host port is taken on the node
//	                   Unschedulable "node(s) didn't have free ports for the requested pod ports"
//	InterPodAffinity   required pod affinity, in order:
//	                   UnschedulableAndUnresolvable "node(s) didn't match pod affinity rules"
//	                   Unschedulable "node(s) didn't match pod anti-affinity rules"
//	                   Unschedulable "node(s) didn't satisfy existing pods anti-affinity rules"
//	NodeVolumeLimits   per CSI driver, the node's attached volumes plus the pod's new ones
//	                   within its CSINode's count
//	                   Unschedulable "node(s) exceed max volume count"
//	VolumeZone         the zone and region labels of the pod's bound volumes
//	                   UnschedulableAndUnresolvable "node(s) had no available volume zone"
//	PodTopologySpread  DoNotSchedule constraints:
//	                   UnschedulableAndUnresolvable "node(s) didn't match pod topology spread constraints (missing required label)"
//	                   Unschedulable "node(s) didn't match pod topology spread constraints"
//	VolumeBinding      bound volumes' node affinity, a volume or a provisioner for each
//	                   unbound WaitForFirstConsumer claim (scheduler/volumes)
//	                   UnschedulableAndUnresolvable "node(s) had volume node affinity conflict",
//	                   "node(s) didn't find available persistent volumes to bind", ...
//	DynamicResources   devices for the pod's ResourceClaims from the node's
//	                   ResourceSlices (scheduler/dra)
//	                   UnschedulableAndUnresolvable "cannot allocate all claims", ...
//
// The volume and device checks have PrePredicate parts (every claim exists,
// belongs to the pod, is not being deleted; no unbound Immediate claim),
// worded "plugin VolumeBinding pre-predicates failed ..." and so on. What
// the pod takes on its node (volumes, provisions, devices) is reserved at
// its allocate event for the rest of the session and released at its
// deallocate event; the task carries it to the bind (BindVolumes,
// BindClaims), which writes it first.
//
// The filters after the stable ones add their Unschedulable reasons up; an
// unresolvable one ends the check, as in Volcano. The last two follow
// kube-scheduler v1.32 (scheduler/podrules): namespaces and
// namespace selectors (Namespace labels from the cache), matchLabelKeys and
// mismatchLabelKeys, existing pods' required anti-affinity against the
// pod, the first pod of a group whose members must be together, minDomains,
// nodeAffinityPolicy, nodeTaintsPolicy, terminating pods not counted for
// spread. Pods placed, pipelined or evicted earlier in the session count,
// as of the task's PrePredicate, which is when Volcano computes the
// PreFilter state: in a preemption the victims evicted for a preemptor are
// not seen by its own checks, so a victim that alone blocks by
// anti-affinity does not make room. In the topology-aware dry run they are
// seen when the tier entry enables enablePreemptable or enabledAllocatable
// (Volcano's SimulateRemoveTask), and not otherwise.
//
// The first three never change during a session, so they are the "stable"
// filters Volcano caches: an UnschedulableAndUnresolvable answer there ends the
// check, with the pod-count reason before it when that one fails too. Preempt
// and reclaim skip such nodes and still consider nodes that are merely
// Unschedulable. Volcano's predicates plugin itself has no resource check: the
// allocate action makes it, and preempt and backfill ignore resource shortage
// (backfill places only best-effort tasks, which the pod-count filter limits).
// Checking resources here gives the same decisions in all three, because the
// shortage is reported as Unschedulable and only after the stable filters.
//
// The pod count follows Volcano's bookkeeping: every task on the node at
// session open (releasing ones included), plus tasks placed in the session,
// minus tasks evicted in the session.
//
// PrePredicate rejects, before any node is looked at, a pod whose required node
// affinity terms each name nodes by metadata.name and together name none
// ("plugin NodeAffinity pre-predicates failed pod affinity terms conflict"),
// and a pod whose pod affinity terms or DoNotSchedule spread constraints do
// not parse (a malformed selector, an unknown operator), with
// kube-scheduler's message after "plugin InterPodAffinity pre-predicates
// failed parsing pod: " or "plugin PodTopologySpread pre-predicates failed
// get constraints from pod: ".
//
// Caching: the stable filters are evaluated once per (pod template, node),
// where a template is the set of pods with equal node selector, required node
// affinity, tolerations and host ports; gangs made from one pod template share
// it. The answer is identical to the uncached evaluation.
//
// Arguments (Volcano's names and defaults):
//
//	predicate.NodeAffinityEnable              true   node selector and required affinity
//	predicate.NodePortsEnable                 true   host ports
//	predicate.TaintTolerationEnable           true   NoSchedule/NoExecute taints
//	predicate.CacheEnable                     false  accepted; the cache above is always on
//	predicate.PodAffinityEnable               true   inter-pod affinity and anti-affinity
//	predicate.NodeVolumeLimitsEnable          true   CSI volume limits
//	predicate.VolumeZoneEnable                true   volume zones
//	predicate.PodTopologySpreadEnable         true   topology spread
//	predicate.VolumeBindingEnable             true   volume binding
//	predicate.DynamicResourceAllocationEnable true   dynamic resource allocation (Volcano
//	                                                 v1.15 follows the feature gate, on)
//	volumebinding.bindTimeoutSeconds          600    the bind's wait for the PV controller
//	volumebinding.shape, volumebinding.weight none, 1  the volume binding score
//	dynamicresources.filterTimeoutSeconds     10     one node's device search (0: none)
//
// GPU sharing, which Volcano runs from this plugin's event handlers, is the
// deviceshare plugin's here. Keys the plugin does not read are
// logged once each and change nothing, as Volcano ignores them (other plugins
// refuse unknown keys; configurations for older Volcano releases carry
// predicate keys since moved elsewhere); a known key with a value of the
// wrong type is an error.
package predicates
