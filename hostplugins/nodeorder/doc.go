// Package nodeorder scores nodes for a task with kube-scheduler's scoring
// rules, as Volcano v1.15's nodeorder plugin runs them: each strategy scores
// every candidate node in 0..100 (MaxNodeScore) with kube-scheduler's integer
// arithmetic, is normalised over the candidates where kube-scheduler
// normalises it, and is multiplied by its weight; the plugin returns the sum
// per node from the batch scoring hook (BatchNodeOrder), as Volcano does.
//
// Strategies, one file each, and their arguments (Volcano's names and defaults):
//
//	leastrequested.weight    1  NodeResourcesFit LeastAllocated, cpu and memory
//	                            weighing 50 each, on requests with kube-scheduler's
//	                            defaults for containers that set none (100m, 200Mi)
//	mostrequested.weight     0  NodeResourcesFit MostAllocated, cpu and memory 1 each
//	balancedresource.weight  1  NodeResourcesBalancedAllocation over cpu, memory and
//	                            nvidia.com/gpu; skipped for pods that request none
//	nodeaffinity.weight      2  preferred node affinity: summed term weights,
//	                            normalised so the best candidate gets 100
//	tainttoleration.weight   3  untolerated PreferNoSchedule taints, normalised and
//	                            reversed so the candidates with fewest get 100
//
//	podaffinity.weight       2  InterPodAffinity: preferred affinity and anti-affinity
//	                            of the pod, and existing pods' preferred terms and
//	                            required affinity terms (podaffinity.hardPodAffinityWeight,
//	                            Caldera's, 1) that select it, per topology domain;
//	                            min-max normalised over the candidates
//	podtopologyspread.weight 2  PodTopologySpread over ScheduleAnyway constraints,
//	                            normalised so the least crowded candidates get 100
//	imagelocality.weight     1  ImageLocality: the pod's images present on the node
//	                            (node status), scaled by how many nodes have them;
//	                            not normalised, as in Volcano's NodeOrder
//
// A weight of 0 turns a strategy off; negative weights are applied as given.
// A pod whose pod affinity terms or ScheduleAnyway constraints do not parse
// fails the batch score (kube-scheduler's PreScore error), and Volcano then
// picks no node for it. Keys the plugin does not read are ignored, as in
// Volcano; a known key of the wrong type is an error. Cluster default spread
// constraints are not applied (docs/configuration.md).
//
// Inter-pod affinity and spread scores count the pods on the nodes as the
// node usage below does: placements and evictions of the session when a
// plugin named predicates is configured, the pods at session open otherwise.
//
// Node usage is what Volcano's kube-scheduler NodeInfo holds: the requests of
// every task on the node at session open, plus tasks placed in the session and
// minus tasks evicted in it. Volcano updates that NodeInfo from the predicates
// plugin's event handlers, so when no plugin named predicates is configured the
// usage stays as it was at session open; this plugin does the same. A Wasm
// module that declares the name predicates (its port) counts as configured,
// whatever file name the configuration gives it.
//
// Affinity and taint scores depend only on the pod's preferred terms and
// tolerations and on the node, so they are computed once per (pod template,
// node) and reused; the cached answers are identical to fresh ones.
package nodeorder
